import { type ChildProcess, spawn } from 'node:child_process';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { freePort } from '../../scripts/local-services.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const PRELOAD = fileURLToPath(new URL('./loopback-preload.mjs', import.meta.url));

/** A local MCP server: its endpoint and how to stop it. */
export interface LocalMcpServer {
  url: string;
  stop: () => Promise<void>;
}

/** Serves `handle` on a loopback port; `stop` runs `beforeClose`, then ends every connection. */
async function listenLocal(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  beforeClose: () => Promise<void> | void = () => undefined,
): Promise<LocalMcpServer> {
  const http: Server = createServer(handle);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`,
    stop: async () => {
      await beforeClose();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** A stateless SDK-built (v2) MCP request handler: each request gets a server that `register` gave its tools. */
function statelessHandler(name: string, register: (server: McpServer) => void) {
  return toNodeHandler(
    createMcpHandler(() => {
      const server = new McpServer({ name, version: '1.0.0' });
      register(server);
      return server;
    }),
  );
}

/** What a stateful server holds open: live sessions, and the GET event streams open, each with its auth header. */
export interface SessionCounts {
  /** Sessions initialized and not yet ended by a DELETE. */
  openSessions(): number;
  /** GET event streams open now, each as the value of the `x-key` header it carried ('' without one). */
  openStreams(): string[];
  /** Every request so far, as the value of its `x-key` header ('' without one). */
  requests: string[];
}

/** A stateful (sessions, v1 SDK) MCP server: each session gets a server from `newServer`; `servers()` lists them. */
async function startSessionServer(
  newServer: () => V1McpServer,
): Promise<LocalMcpServer & SessionCounts & { servers(): V1McpServer[] }> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const { randomUUID } = await import('node:crypto');
  type Session = { transport: InstanceType<typeof StreamableHTTPServerTransport>; server: V1McpServer };
  const sessions = new Map<string, Session>();
  const streams = new Set<{ key: string }>();
  const requests: string[] = [];
  const local = await listenLocal(
    (req, res) => {
      const key = String(req.headers['x-key'] ?? '');
      requests.push(key);
      if (req.method === 'GET') {
        const stream = { key };
        streams.add(stream);
        res.on('close', () => streams.delete(stream));
      }
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
        const sessionId = req.headers['mcp-session-id'] as string | undefined;
        let session = sessionId ? sessions.get(sessionId) : undefined;
        if (!session && !sessionId && req.method === 'POST' && isInitializeRequest(body)) {
          const server = newServer();
          const transport: Session['transport'] = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
            onsessionclosed: (id) => void sessions.delete(id),
          });
          await server.connect(transport);
          session = { transport, server };
        }
        if (!session) {
          res.writeHead(404).end();
          return;
        }
        await session.transport.handleRequest(req, res, body);
      })();
    },
    async () => {
      for (const { transport } of sessions.values()) await transport.close().catch(() => undefined);
    },
  );
  return {
    ...local,
    servers: () => [...sessions.values()].map(({ server }) => server),
    openSessions: () => sessions.size,
    openStreams: () => [...streams].map((stream) => stream.key),
    requests,
  };
}

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
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
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
  /** Names of headers starting `x-toolgate-` that requests carried (Toolgate's own, never meant to be sent). */
  internal: string[];
  stop(): Promise<void>;
}

/** A small SDK-built (v2, stateless) MCP server that refuses requests without the expected header. */
export async function startAuthCheckingServer(headerName: string, expected: string): Promise<AuthCheckingServer> {
  const seen: string[] = [];
  const internal: string[] = [];
  const inputSchema = fromJsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
  const sleepSchema = fromJsonSchema({ type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] });
  const handler = statelessHandler('auth-checking', (server) => {
    server.registerTool(
      'sleep',
      { description: 'Waits ms milliseconds (or until cancelled)', inputSchema: sleepSchema },
      async (args: unknown, ctx) => {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, (args as { ms: number }).ms);
          ctx.mcpReq.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
        return { content: [{ type: 'text', text: 'slept' }] };
      },
    );
    server.registerTool(
      'shout',
      { description: 'Upper-cases text', inputSchema, annotations: { readOnlyHint: true } },
      async (args: unknown) => ({
        content: [{ type: 'text', text: (args as { text: string }).text.toUpperCase() }],
      }),
    );
  });
  const local = await listenLocal((req, res) => {
    const value = req.headers[headerName.toLowerCase()];
    seen.push(String(value));
    internal.push(...Object.keys(req.headers).filter((name) => name.startsWith('x-toolgate-')));
    if (value !== expected) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    void handler(req, res);
  });
  return { ...local, seen, internal };
}

export interface ChangingServer {
  url: string;
  /** Adds a tool; every connected session is told with `notifications/tools/list_changed`. */
  addTool(name: string): void;
  /**
   * Rewords a tool's description, and gives it the required string arguments `required` (none when empty); every
   * connected session is told with `notifications/tools/list_changed`.
   */
  changeTool(name: string, description: string, required?: string[]): void;
  /** The arguments of each call the server answered, in order. */
  calls: { name: string; arguments: Record<string, unknown> }[];
  stop(): Promise<void>;
}

/** A stateful (sessions, v1 SDK) MCP server whose tool list grows, and whose tools change, while clients are connected. */
export async function startChangingServer(initialTools: string[]): Promise<ChangingServer> {
  const { McpServer: V1Server } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { z } = await import('zod');
  const tools = new Map<string, { description: string; required: string[] }>(
    initialTools.map((name) => [name, { description: `The ${name} tool`, required: [] }]),
  );
  const calls: ChangingServer['calls'] = [];
  type Handles = Map<string, ReturnType<V1McpServer['registerTool']>>;
  const handlesOf = new Map<V1McpServer, Handles>();
  const shapeOf = (required: string[]) => Object.fromEntries(required.map((arg) => [arg, z.string()]));
  const answer = (name: string, args: Record<string, unknown>) => {
    calls.push({ name, arguments: args });
    return { content: [{ type: 'text' as const, text: name }] };
  };
  const register = (server: V1McpServer, name: string) => {
    const { description, required } = tools.get(name) ?? { description: `The ${name} tool`, required: [] };
    // Without arguments, as the server always listed its tools (no inputSchema: the SDK lists an empty object).
    const handle =
      required.length === 0
        ? server.registerTool(name, { description }, async () => answer(name, {}))
        : server.registerTool(name, { description, inputSchema: shapeOf(required) }, async (args) =>
            answer(name, args),
          );
    handlesOf.get(server)?.set(name, handle);
  };
  const local = await startSessionServer(() => {
    const server = new V1Server(
      { name: 'changing', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    handlesOf.set(server, new Map());
    for (const name of tools.keys()) register(server, name);
    return server;
  });
  return {
    url: local.url,
    stop: local.stop,
    calls,
    addTool(name) {
      tools.set(name, { description: `The ${name} tool`, required: [] });
      for (const server of local.servers()) register(server, name);
    },
    changeTool(name, description, required = []) {
      tools.set(name, { description, required });
      for (const server of local.servers()) {
        handlesOf
          .get(server)
          ?.get(name)
          ?.update({ description, paramsSchema: shapeOf(required) });
      }
    },
  };
}

/** What a scripted server answers to one JSON-RPC request. */
export type ScriptedReply =
  | { result: unknown; as?: 'json' | 'sse' }
  /** A result given as JSON text (one nested deeper than JSON.stringify can write). */
  | { resultJson: string }
  /** Any HTTP answer at all (an error body, a redirect). */
  | { http: { status: number; headers?: Record<string, string>; body?: string } }
  /** An SSE stream that sends a comment every 100 ms and never ends. */
  | { endless: true }
  /** A chunked JSON answer whose connection is cut after its first bytes. */
  | { cut: true };

export interface ScriptedServer {
  url: string;
  /** The JSON-RPC methods received, in order. */
  methods: string[];
  /** The paths requests came to. */
  paths: string[];
  /** Endless streams whose client went away. */
  streamsClosed: number;
  /** Sends `notifications/tools/list_changed` `times` times on every open GET stream. */
  notifyToolsChanged(times: number): void;
  /** How many GET streams are open. */
  openStreams(): number;
  stop(): Promise<void>;
}

/**
 * A hand-written MCP server (stateless Streamable HTTP, 2025 protocol) whose `tools/list` and
 * `tools/call` answers the test scripts: for what a well-behaved SDK server never does (a name
 * listed twice, pages, 2 MiB answers, endless streams, redirects).
 */
export async function startScriptedServer(script: {
  toolsList?: (cursor: string | undefined) => ScriptedReply;
  toolsCall?: (name: string, args: Record<string, unknown>) => ScriptedReply;
}): Promise<ScriptedServer> {
  const getStreams = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const state = { streamsClosed: 0 };
  const methods: string[] = [];
  const paths: string[] = [];
  const send = (res: ServerResponse, id: unknown, reply: ScriptedReply) => {
    if ('http' in reply) {
      res.writeHead(reply.http.status, reply.http.headers).end(reply.http.body ?? '');
    } else if ('cut' in reply) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[`);
      setTimeout(() => res.socket?.destroy(), 50);
    } else if ('resultJson' in reply) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${reply.resultJson}}`);
    } else if ('endless' in reply) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const timer = setInterval(() => res.write(': still working\n\n'), 100);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
        state.streamsClosed++;
      });
    } else if (reply.as === 'sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: reply.result })}\n\n`);
    } else {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: reply.result }));
    }
  };
  const local = await listenLocal(
    (req, res) => {
      void (async () => {
        paths.push(req.url ?? '/');
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.flushHeaders();
          getStreams.add(res);
          res.on('close', () => getStreams.delete(res));
          return;
        }
        if (req.method !== 'POST') return void res.writeHead(405).end();
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const message = JSON.parse(Buffer.concat(chunks).toString()) as {
          id?: unknown;
          method: string;
          params?: Record<string, any>;
        };
        methods.push(message.method);
        if (message.id === undefined) return void res.writeHead(202).end();
        const { id, method, params } = message;
        if (method === 'initialize') {
          const result = {
            protocolVersion: params?.protocolVersion,
            capabilities: { tools: { listChanged: true } },
            serverInfo: { name: 'scripted', version: '1.0.0' },
          };
          return send(res, id, { result });
        }
        if (method === 'tools/list' && script.toolsList) return send(res, id, script.toolsList(params?.cursor));
        if (method === 'tools/call' && script.toolsCall)
          return send(res, id, script.toolsCall(params?.name, params?.arguments ?? {}));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } }));
      })();
    },
    () => {
      for (const timer of timers) clearInterval(timer);
    },
  );
  return {
    url: local.url,
    methods,
    paths,
    get streamsClosed() {
      return state.streamsClosed;
    },
    notifyToolsChanged(times) {
      const event = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`;
      for (const res of getStreams) for (let i = 0; i < times; i++) res.write(event);
    },
    openStreams: () => getStreams.size,
    stop: local.stop,
  };
}

/** A tool as `tools/list` lists it. */
export function listedTool(name: string, description = `The ${name} tool`) {
  return { name, description, inputSchema: { type: 'object', properties: {} } };
}

/** NUL, a lone surrogate and a raw control byte: what Postgres text and jsonb refuse. */
export const ODD_TEXT = 'before\u0000after \ud800 end';

/** A small SDK-built (v2, stateless) MCP server whose tools answer text Postgres cannot hold. */
export async function startOddTextServer(): Promise<LocalMcpServer> {
  const handler = statelessHandler('odd-text', (server) => {
    server.registerTool('odd', { description: 'Answers text with NUL' }, async () => ({
      content: [{ type: 'text', text: ODD_TEXT }],
      structuredContent: { [`key\u0000`]: ODD_TEXT },
    }));
    server.registerTool('odd-error', { description: 'Fails with text with NUL' }, async () => ({
      content: [{ type: 'text', text: ODD_TEXT }],
      isError: true,
    }));
  });
  return listenLocal((req, res) => void handler(req, res));
}

/**
 * A small SDK-built (v2, stateless) MCP server whose tool `burst` sends `count` progress
 * notifications `everyMs` apart, each with a long message, and answers right after the last one.
 */
export async function startProgressBurstServer(): Promise<LocalMcpServer> {
  const inputSchema = fromJsonSchema({
    type: 'object',
    properties: { count: { type: 'number' }, everyMs: { type: 'number' } },
    required: ['count', 'everyMs'],
  });
  const handler = statelessHandler('progress-burst', (server) => {
    server.registerTool(
      'burst',
      { description: 'Reports progress in a burst', inputSchema },
      async (args: unknown, ctx) => {
        const { count, everyMs } = args as { count: number; everyMs: number };
        const progressToken = ctx.mcpReq._meta?.progressToken;
        for (let i = 1; i <= count; i++) {
          if (progressToken !== undefined) {
            await ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken, progress: i, total: count, message: `step ${i} ${'x'.repeat(300)}` },
            });
          }
          if (everyMs > 0 && i < count) await new Promise((resolve) => setTimeout(resolve, everyMs));
        }
        return { content: [{ type: 'text', text: `${count} steps done` }] };
      },
    );
  });
  return listenLocal((req, res) => void handler(req, res));
}

export interface SessionEchoServer extends SessionCounts {
  url: string;
  stop(): Promise<void>;
}

/** A stateful (sessions, v1 SDK) MCP server whose tool `whoami` answers with the caller's MCP session id. */
export async function startSessionEchoServer(): Promise<SessionEchoServer> {
  const { McpServer: V1Server } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  return startSessionServer(() => {
    const server = new V1Server({ name: 'session-echo', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Answers with your MCP session id' }, async (extra) => ({
      content: [{ type: 'text' as const, text: String(extra.sessionId) }],
    }));
    return server;
  });
}
