#!/usr/bin/env node
// Diagnostic (not part of run.mjs): two builds side by side, CPU per call of each, measured in alternating rounds so
// that both meet the same machine (this VM's speed drifts by a third within minutes: a lever's few percent show only
// in pairs measured together). Starts one handler and, per build, its own redis-server and Toolgate (fresh schema).
// Each round sends N calls of MODE (instant: CPU of the API and Postgres until every answer; background: API, worker,
// Postgres and Redis until the handler has every call; mcp: server-everything's echo through the REST route, API and
// Postgres; mcp-agent: the same through the agent's MCP endpoint, K SDK clients) with K in flight to A, then to B (B
// first in odd rounds).
// Usage: cp -r dist dist-b, change dist-b (or build another commit into it), then
//   AB_B=dist-b MODE=instant N=3000 K=20 ROUNDS=8 node bench/ab.mjs
import { Client, Pool } from 'undici';
import { CALL_ARGUMENTS } from './lib/body.mjs';
import { cpuProbe } from './lib/cpu.mjs';
import { agentMcpClient, echoOnce, loadTarget, toolCallRequest } from './lib/fixtures.mjs';
import { handlerCount } from './lib/load.mjs';
import { killAllSync, stopAll } from './lib/procs.mjs';
import { median } from './lib/stats.mjs';
import { benchEnv, startEverything, startHandler, startRedis, startToolgate } from './lib/stack.mjs';

const A = process.env.AB_A ?? 'dist';
const B = process.env.AB_B ?? 'dist-b';
const MODE = process.env.MODE ?? 'instant';
const N = Number(process.env.N ?? 3000);
const K = Number(process.env.K ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
process.on('exit', killAllSync);

const MCP = MODE === 'mcp' || MODE === 'mcp-agent';
const ECHO = 'hello from the benchmark';
const handler = await startHandler();
const everything = MCP ? await startEverything() : null;
const hc = new Client(handler.url);
const count = (path) => handlerCount(hc, path);

async function side(name, dist) {
  const redis = await startRedis();
  // AB_ENV_A / AB_ENV_B ('NAME=value,NAME=value'): a setting for one side only (the same build on both, say).
  const extraEnv = benchEnv(process.env[`AB_ENV_${name.toUpperCase()}`]);
  const stack = await startToolgate({ redisUrl: redis.url, label: `ab-${name}`, dist, extraEnv });
  const path = `/ok/ab-${name}`;
  const { agent, tool } = await loadTarget(stack, `ab${name}`, MODE, {
    handlerUrl: `${handler.url}${path}`,
    everythingUrl: everything?.url,
  });
  const pool = new Pool(stack.baseUrl, { connections: K });
  const request = toolCallRequest(agent, tool, MCP ? { message: ECHO } : CALL_ARGUMENTS);
  const mcpClients =
    MODE === 'mcp-agent' ? await Promise.all(Array.from({ length: K }, () => agentMcpClient(stack, agent))) : [];
  const callOnce = async (k) => {
    if (MODE === 'mcp-agent') return echoOnce(mcpClients[k], tool, ECHO);
    const response = await pool.request(request);
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${name}: status ${response.statusCode}`);
    if (MCP && !text.includes('"succeeded"')) throw new Error(`${name}: ${text.slice(0, 300)}`);
  };
  let sent = 0;
  const burst = async (n) => {
    let i = 0;
    await Promise.all(
      Array.from({ length: K }, async (_, k) => {
        while (i++ < n) await callOnce(k);
      }),
    );
    sent += n;
    if (!MCP) while ((await count(path)) < sent) await sleep(10);
  };
  const pids = { api: stack.api.pid, worker: stack.worker.pid, redis: redis.proc.pid };
  return {
    name,
    stack,
    pool,
    mcpClients,
    async round() {
      const probe = cpuProbe(pids);
      await burst(N);
      const r = probe.stop(N);
      const total = MODE !== 'background' ? r.api + r.postgres : r.api + r.worker + r.postgres + r.redis;
      return { api: r.api, worker: r.worker, postgres: r.postgres, total, rate: (N / r.wall_ms) * 1000 };
    },
    warm: async () => {
      await burst(N);
      await burst(N);
    },
  };
}

try {
  const sides = [await side('a', A), await side('b', B)];
  for (const s of sides) await s.warm();
  const rows = { a: [], b: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const s of order) {
      await sleep(300);
      rows[s.name].push(await s.round());
    }
    const [a, b] = [rows.a.at(-1), rows.b.at(-1)];
    console.log(
      `round ${round + 1}: A ${a.total.toFixed(3)} ms/call (api ${a.api.toFixed(3)}) ${a.rate.toFixed(0)}/s | ` +
        `B ${b.total.toFixed(3)} ms/call (api ${b.api.toFixed(3)}) ${b.rate.toFixed(0)}/s | B/A ${(b.total / a.total).toFixed(3)}`,
    );
  }
  const ratio = (key) => median(rows.a.map((a, i) => rows.b[i][key] / a[key]));
  const med = (name, key) => median(rows[name].map((r) => r[key])).toFixed(3);
  console.log(
    `${MODE}, ${A} vs ${B}, N=${N} K=${K}, ${ROUNDS} rounds: median CPU per call A ${med('a', 'total')} / B ` +
      `${med('b', 'total')} ms (API ${med('a', 'api')} / ${med('b', 'api')}); median of paired B/A: total ` +
      `${ratio('total').toFixed(3)}, API ${ratio('api').toFixed(3)}, calls/s ${ratio('rate').toFixed(3)}`,
  );
  for (const s of sides) await Promise.all([s.pool.close(), ...s.mcpClients.map((c) => c.close())]);
  for (const s of sides) await s.stack.stop();
} finally {
  await hc.close();
  await stopAll();
}
