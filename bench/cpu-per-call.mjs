#!/usr/bin/env node
// Diagnostic (not part of run.mjs): CPU ms per call by process, instant then background calls
// (20 in flight, N each, after 300 to warm up) on one stack built in dist/. "postgres" is every
// Postgres process of the machine, so other users of it count too. ~1 minute.
// Usage: N=3000 node bench/cpu-per-call.mjs
import { Client, Pool } from 'undici';
import { CALL_ARGUMENTS } from './lib/body.mjs';
import { cpuProbe } from './lib/cpu.mjs';
import { agentWith, constructorApp, httpTool } from './lib/fixtures.mjs';
import { handlerCount } from './lib/load.mjs';
import { killAllSync, stopAll } from './lib/procs.mjs';
import { startHandler, startRedis, startToolgate } from './lib/stack.mjs';

const N = Number(process.env.N ?? 3000);
const C = 20;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
process.on('exit', killAllSync);
const redis = await startRedis();
const handler = await startHandler();
const stack = await startToolgate({ redisUrl: redis.url, label: 'cpu' });
const hc = new Client(handler.url);
const count = (path) => handlerCount(hc, path);
try {
  for (const mode of ['instant', 'background']) {
    const path = `/ok/cpu-${mode}`;
    const app = await constructorApp(stack, 'cpu', [httpTool('t', `${handler.url}${path}`, mode)]);
    const agent = await agentWith(stack, app.app, ['t']);
    const pool = new Pool(stack.baseUrl, { connections: C });
    const request = {
      method: 'POST',
      path: `/v1/agents/${agent.agentId}/tool-calls`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.token}` },
      body: JSON.stringify({ tool: `${app.prefix}t`, dialog_id: 'cpu', arguments: CALL_ARGUMENTS }),
    };
    const burst = async (n) => {
      let i = 0;
      await Promise.all(
        Array.from({ length: C }, async () => {
          while (i++ < n) {
            const response = await pool.request(request);
            await response.body.dump();
            if (response.statusCode >= 300) throw new Error(`status ${response.statusCode}`);
          }
        }),
      );
    };
    await burst(300);
    while ((await count(path)) < 300) await sleep(100);
    await sleep(1000);
    const probe = cpuProbe({ api: stack.api.pid, worker: stack.worker.pid, redis: redis.proc.pid });
    await burst(N);
    while ((await count(path)) < 300 + N) await sleep(20);
    const r = probe.stop(N);
    const figures = JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v.toFixed(3))])));
    const sum = (r.api + r.worker + r.postgres + r.redis).toFixed(3);
    console.log(
      `${mode}: ${figures} sum(api+worker+pg+redis)=${sum} ms/call, ${((N / r.wall_ms) * 1000).toFixed(0)} calls/s`,
    );
    await pool.close();
  }
} finally {
  await hc.close();
  await stack.stop();
  await stopAll();
}
