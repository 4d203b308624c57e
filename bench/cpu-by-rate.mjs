#!/usr/bin/env node
// Diagnostic (not part of run.mjs): CPU ms per background call by process at paced rates, not at saturation. Starts
// its own redis-server, handler and Toolgate (dist/, fresh schema), warms up with 8,000 calls, reads each process's
// CPU over 5 idle seconds, then sends each RATES entry's calls per second for S seconds (one POST each 1/rate s)
// and reads the CPU per call until the handler has them all. Every call goes through the queue and the worker
// (API_DELIVERY_CONCURRENCY=0) unless ADC sets the API's first attempts. At a low rate each claim and record is a
// statement of its own and every step wakes a process: what row 4c's paced retries cost. ~1 minute.
// Usage: npm run build && RATES=100,300,600,1000 S=8 node bench/cpu-by-rate.mjs
import { Client, Pool } from 'undici';
import { CALL_ARGUMENTS } from './lib/body.mjs';
import { cpuProbe } from './lib/cpu.mjs';
import { loadTarget, toolCallRequest } from './lib/fixtures.mjs';
import { handlerCount, inParallel, paced } from './lib/load.mjs';
import { killAllSync, stopAll } from './lib/procs.mjs';
import { startHandler, startRedis, startToolgate } from './lib/stack.mjs';

const RATES = (process.env.RATES ?? '100,300,600,1000').split(',').map(Number);
const S = Number(process.env.S ?? 8);
const WARMUP = 8000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
process.on('exit', killAllSync);

const handler = await startHandler();
const redis = await startRedis();
const stack = await startToolgate({
  redisUrl: redis.url,
  label: 'rate',
  extraEnv: { API_DELIVERY_CONCURRENCY: process.env.ADC ?? '0' },
});
const hc = new Client(handler.url);
const pool = new Pool(stack.baseUrl, { connections: 50 });
try {
  const path = '/ok/cpu-by-rate';
  const { agent, tool } = await loadTarget(stack, 'rate', 'background', { handlerUrl: `${handler.url}${path}` });
  const request = toolCallRequest(agent, tool, CALL_ARGUMENTS);
  const call = async () => {
    const response = await pool.request(request);
    await response.body.text();
    if (response.statusCode !== 202) throw new Error(`POST tool-calls: ${response.statusCode}`);
  };
  let sent = 0;
  const allDelivered = async () => {
    while ((await handlerCount(hc, path)) < sent) await sleep(10);
  };

  await inParallel(WARMUP, 50, call);
  sent += WARMUP;
  await allDelivered();
  const pids = { api: stack.api.pid, worker: stack.worker.pid, redis: redis.proc.pid };
  const idle = cpuProbe(pids);
  await sleep(5000);
  const rest = idle.stop(1);
  console.log(`idle, 5 s: API ${rest.api.toFixed(0)} ms, worker ${rest.worker.toFixed(0)} ms of CPU`);
  console.log('| calls/s | API | worker | Postgres | Redis | CPU per call, these four (ms) |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const rate of RATES) {
    const n = rate * S;
    const probe = cpuProbe(pids);
    await paced(n, rate, call);
    sent += n;
    await allDelivered();
    const r = probe.stop(n);
    const sum = r.api + r.worker + r.postgres + r.redis;
    const cells = [r.api, r.worker, r.postgres, r.redis, sum].map((v) => v.toFixed(2));
    console.log(`| ${rate} | ${cells.join(' | ')} |`);
  }
} finally {
  await pool.close();
  await hc.close();
  await stack.stop();
  await stopAll();
}
