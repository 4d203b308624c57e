// CPU and wall time per echo tools/call made by Toolgate's MCP client (McpClients.callTool, dist/), next to its
// floor: a plain POST of the same request on the same session (undici, body read as text). Both against
// server-everything over Streamable HTTP on loopback, one call at a time. Usage: npm run build && node
// bench/mcp-client-cost.mjs   (N=2000 calls per side after 300 warm-up calls; RUNS=3).
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Agent, request } from 'undici';
import { McpClients } from '../dist/libs/mcp/src/index.js';

const require = createRequire(import.meta.url);
const N = Number(process.env.N ?? 2000);
const RUNS = Number(process.env.RUNS ?? 3);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const port = 39000 + Math.floor(Math.random() * 1000);
const server = spawn(process.execPath, [everything, 'streamableHttp'], {
  env: { PATH: process.env.PATH ?? '', PORT: String(port) },
  stdio: ['ignore', 'pipe', 'pipe'],
});
await new Promise((resolve) => {
  const ready = (chunk) => String(chunk).includes('listening on port') && resolve();
  server.stdout.on('data', ready);
  server.stderr.on('data', ready);
});
const url = `http://127.0.0.1:${port}/mcp`;
const agent = new Agent();
const clients = new McpClients({ forApp: () => agent });
const target = { appId: 'bench', url, headerName: null, headerValue: null, session: 'bench-agent' };

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
async function measure(call) {
  for (let i = 0; i < 300; i++) await call(i);
  const cpu0 = cpuMs();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await call(i);
  return { cpu: (cpuMs() - cpu0) / N, wall: (performance.now() - t0) / N };
}

const viaClient = (i) => clients.callTool(target, 'echo', { message: `hi ${i}` }, { timeoutMs: 10_000 });
await viaClient(0);
const transport = [...clients.connections.values()][0].client.transport;
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...(transport.sessionId ? { 'mcp-session-id': transport.sessionId } : {}),
  'mcp-protocol-version': transport.protocolVersion,
};
const plainPost = async (i) => {
  const body = {
    jsonrpc: '2.0',
    id: `p${i}`,
    method: 'tools/call',
    params: { name: 'echo', arguments: { message: `hi ${i}` } },
  };
  const answer = await request(url, { method: 'POST', dispatcher: agent, headers, body: JSON.stringify(body) });
  await answer.body.text();
};

const rows = { client: [], plain: [] };
for (let run = 0; run < RUNS; run++) {
  rows.client.push(await measure(viaClient));
  rows.plain.push(await measure(plainPost));
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (list, key) => `${median(list.map((r) => r[key])).toFixed(3)} ms`;
console.log(`protocol ${transport.protocolVersion}, ${N} calls per side, median of ${RUNS} runs\n`);
console.log('| echo tools/call | client CPU per call | wall per call |\n| --- | --- | --- |');
console.log(`| McpClients.callTool | ${fmt(rows.client, 'cpu')} | ${fmt(rows.client, 'wall')} |`);
console.log(`| floor: a plain POST on the session | ${fmt(rows.plain, 'cpu')} | ${fmt(rows.plain, 'wall')} |`);
await clients.onApplicationShutdown();
server.kill();
await agent.close();
