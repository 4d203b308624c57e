// Diagnostic (not part of run.mjs): CPU ms per call by process, instant then background calls
// (20 in flight, N calls each) on one stack. Usage: node bench/cpu-per-call.mjs
import { Client, Pool } from 'undici';
const W = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const { CALL_ARGUMENTS } = await import(`${W}/bench/lib/body.mjs`);
const { agentWith, constructorApp, httpTool } = await import(`${W}/bench/lib/fixtures.mjs`);
const { killAllSync, stopAll } = await import(`${W}/bench/lib/procs.mjs`);
const { startHandler, startRedis, startToolgate } = await import(`${W}/bench/lib/stack.mjs`);
const { cpuProbe } = await import(`${W}/bench/lib/cpu.mjs`);
const N = Number(process.env.N ?? 3000);
const C = 20;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
process.on('exit', killAllSync);
const redis = await startRedis();
const handler = await startHandler();
const stack = await startToolgate({ redisUrl: redis.url, label: 'cpu' });
const hc = new Client(handler.url);
const count = async (path) => JSON.parse(await (await hc.request({ method: 'GET', path: '/_stats' })).body.text()).counts[path] ?? 0;
try {
  for (const mode of ['instant', 'background']) {
    const path = `/ok/cpu-${mode}`;
    const app = await constructorApp(stack, 'cpu', [httpTool('t', `${handler.url}${path}`, mode)]);
    const agent = await agentWith(stack, app.app, ['t']);
    const pool = new Pool(stack.baseUrl, { connections: C });
    const request = {
      method: 'POST', path: `/v1/agents/${agent.agentId}/tool-calls`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.token}` },
      body: JSON.stringify({ tool: `${app.prefix}t`, dialog_id: 'cpu', arguments: CALL_ARGUMENTS }),
    };
    const burst = async (n) => {
      let i = 0;
      await Promise.all(Array.from({ length: C }, async () => {
        while (i++ < n) { const r = await pool.request(request); await r.body.dump(); if (r.statusCode >= 300) throw new Error(`status ${r.statusCode}`); }
      }));
    };
    await burst(300);
    while ((await count(path)) < 300) await sleep(100);
    await sleep(1000);
    const probe = cpuProbe({ api: stack.api.pid, worker: stack.worker.pid, redis: redis.proc.pid });
    await burst(N);
    while ((await count(path)) < 300 + N) await sleep(20);
    const r = probe.stop(N);
    console.log(`${mode}: ${JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v.toFixed(3))])))}`
      + ` sum(api+worker+pg+redis)=${(r.api + r.worker + r.postgres + r.redis).toFixed(3)} ms/call, ${(N / r.wall_ms * 1000).toFixed(0)} calls/s`);
    await pool.close();
  }
} finally {
  await hc.close();
  await stack.stop();
  await stopAll();
}
