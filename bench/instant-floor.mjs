#!/usr/bin/env node
// Diagnostic (not part of run.mjs): Toolgate's API against the floor of an instant call's own work
// (bench/instant-floor-server.mjs: node:http, pg, undici and node:crypto doing what the API must do, no framework),
// in alternating rounds on the same handler, Postgres schema and load (N calls, K in flight, as row 2 sends them).
// Answers how far the API is from what its work costs at the least on this machine: calls/s, and CPU per call of
// the serving process and of Postgres. Usage: npm run build && N=6000 K=50 ROUNDS=6 node bench/instant-floor.mjs
import { Pool } from 'undici';
import { CALL_ARGUMENTS } from './lib/body.mjs';
import { cpuProbe } from './lib/cpu.mjs';
import { loadTarget, toolCallRequest } from './lib/fixtures.mjs';
import { killAllSync, stopAll } from './lib/procs.mjs';
import { median } from './lib/stats.mjs';
import { startHandler, startInstantFloor, startRedis, startToolgate } from './lib/stack.mjs';

const N = Number(process.env.N ?? 6000);
const K = Number(process.env.K ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
process.on('exit', killAllSync);

const handler = await startHandler();
const redis = await startRedis();
const stack = await startToolgate({ redisUrl: redis.url, label: 'floor-vs' });
const path = '/ok/instant-floor';
const { agent, tool } = await loadTarget(stack, 'floor', 'instant', { handlerUrl: `${handler.url}${path}` });
const floor = await startInstantFloor(stack, `${handler.url}${path}`, tool);

const request = toolCallRequest(agent, tool, CALL_ARGUMENTS);
const sides = [
  { name: 'toolgate', pid: stack.api.pid, pool: new Pool(stack.baseUrl, { connections: K }), rows: [] },
  { name: 'floor', pid: floor.pid, pool: new Pool(floor.url, { connections: K }), rows: [] },
];

async function burst(side, n) {
  let i = 0;
  await Promise.all(
    Array.from({ length: K }, async () => {
      while (i++ < n) {
        const response = await side.pool.request(request);
        const text = await response.body.text();
        if (response.statusCode !== 200 || !text.includes('"succeeded"'))
          throw new Error(`${side.name}: ${response.statusCode} ${text.slice(0, 300)}`);
      }
    }),
  );
}

try {
  for (const side of sides) for (let w = 0; w < 3; w += 1) await burst(side, N);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      await sleep(300);
      const probe = cpuProbe({ server: side.pid });
      await burst(side, N);
      const r = probe.stop(N);
      side.rows.push({
        rate: (N / r.wall_ms) * 1000,
        server: r.server,
        postgres: r.postgres,
        busy: r.machine_busy_pct,
      });
    }
    const [t, f] = sides.map((side) => side.rows.at(-1));
    console.log(
      `round ${round + 1}: Toolgate ${t.rate.toFixed(0)}/s, API ${t.server.toFixed(3)} + Postgres ` +
        `${t.postgres.toFixed(3)} ms/call | floor ${f.rate.toFixed(0)}/s, ${f.server.toFixed(3)} + ` +
        `${f.postgres.toFixed(3)} ms/call`,
    );
  }
  const med = (side, key) => median(side.rows.map((row) => row[key]));
  const ratio = (key) => median(sides[0].rows.map((row, i) => row[key] / sides[1].rows[i][key]));
  console.log(`\nN=${N}, K=${K}, ${ROUNDS} alternating rounds; medians (Toolgate / floor, median of paired ratios)`);
  console.log('| | calls/s | serving process CPU per call | Postgres CPU per call | machine busy |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const side of sides) {
    console.log(
      `| ${side.name} | ${med(side, 'rate').toFixed(0)} | ${med(side, 'server').toFixed(3)} ms | ` +
        `${med(side, 'postgres').toFixed(3)} ms | ${med(side, 'busy').toFixed(0)} % |`,
    );
  }
  console.log(
    `| Toolgate / floor | ${ratio('rate').toFixed(2)} | ${ratio('server').toFixed(2)} | ` +
      `${ratio('postgres').toFixed(2)} | |`,
  );
} finally {
  await stack.stop();
  await stopAll();
}
