import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { freePort } from '../../scripts/local-services.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const PRELOAD = fileURLToPath(new URL('./loopback-preload.mjs', import.meta.url));

export interface EverythingServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** The real `@modelcontextprotocol/server-everything` over Streamable HTTP, on loopback. */
export async function startEverything(): Promise<EverythingServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: EverythingServer = {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    async start() {
      child = spawn(process.execPath, ['--import', PRELOAD, EVERYTHING, 'streamableHttp'], {
        env: { PATH: process.env.PATH ?? '', PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('server-everything did not start')), 20_000);
        child!.stderr!.on('data', (chunk) => {
          if (String(chunk).includes('listening on port')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child!.once('exit', (code) => reject(new Error(`server-everything exited: ${code}`)));
      });
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
  await server.start();
  return server;
}

export interface AuthCheckingServer {
  url: string;
  /** The auth header values requests carried. */
  seen: string[];
  stop(): Promise<void>;
}

/** A small SDK-built (v2, stateless) MCP server that refuses requests without the expected header. */
export async function startAuthCheckingServer(headerName: string, expected: string): Promise<AuthCheckingServer> {
  const seen: string[] = [];
  const inputSchema = fromJsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
  const handler = toNodeHandler(
    createMcpHandler(() => {
      const server = new McpServer({ name: 'auth-checking', version: '1.0.0' });
      server.registerTool('shout', { description: 'Upper-cases text', inputSchema, annotations: { readOnlyHint: true } }, async (args: unknown) => ({
        content: [{ type: 'text', text: (args as { text: string }).text.toUpperCase() }],
      }));
      return server;
    }),
  );
  const http: Server = createServer((req, res) => {
    const value = req.headers[headerName.toLowerCase()];
    seen.push(String(value));
    if (value !== expected) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    void handler(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`,
    seen,
    async stop() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
