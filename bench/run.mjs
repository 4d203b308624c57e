#!/usr/bin/env node
// Toolgate's benchmark suite: `node bench/run.mjs` (after `npm run build`). See bench/README.md.
// Every row measures a floor (the same work without Toolgate) and Toolgate side by side, in the
// same run, on loopback, with the handler in its own process; medians of BENCH_RUNS runs.
import { execSync } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'undici';
import { VIA_PGBOUNCER } from './lib/pgbouncer.mjs';
import { killAllSync, rssMiB, stopAll } from './lib/procs.mjs';
import { ROOT, startEverything, startFloorWorker, startHandler, startRedis, startToolgate } from './lib/stack.mjs';
import { fmt, fmtSpread, median, percentile, spread } from './lib/stats.mjs';
import {
  LATENCY_WARMUP,
  fairness,
  fairnessFixtures,
  instantLatency,
  instantThroughput,
  instantThroughputLimited,
  mainFixtures,
  mcpProxy,
  queuedBacklog,
  queuedThroughput,
  scheduleAccuracy,
  schedulePaced,
  toolsList,
} from './scenarios.mjs';

/**
 * @typedef {import('./lib/stack.mjs').Stack} Stack
 * @typedef {import('./lib/cpu.mjs').CpuPerCall} CpuPerCall
 * @typedef {import('./scenarios.mjs').RowContext} RowContext
 * @typedef {import('./scenarios.mjs').RowRun} RowRun
 * @typedef {import('./scenarios.mjs').Metrics} Metrics
 * @typedef {(ctx: RowContext, run: number, signal: AbortSignal) => Promise<RowRun>} Row
 */

const QUICK = process.env.BENCH_QUICK === '1';
/**
 * @param {string} name
 * @param {number} full
 * @param {number} quick
 */
const num = (name, full, quick) => {
  const value = Number(process.env[name] ?? (QUICK ? quick : full));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const timeoutS = num('BENCH_TIMEOUT_S', 180, 120);
const cfg = {
  quick: QUICK,
  runs: num('BENCH_RUNS', 3, 1),
  warmup: num('BENCH_WARMUP', 200, 50),
  latencyN: num('BENCH_LATENCY_N', 2000, 200),
  throughputN: num('BENCH_THROUGHPUT_N', 6000, 600),
  clients: 50,
  queuedN: num('BENCH_QUEUED', 20000, 1000),
  scheduleN: num('BENCH_SCHEDULE_N', 1000, 100),
  /** Row 4c sends its calls at this rate (calls/s): about a quarter of what the worker delivers here. */
  scheduleRate: num('BENCH_SCHEDULE_RATE', 100, 100),
  mcpN: num('BENCH_MCP_N', 500, 50),
  listN: num('BENCH_LIST_N', 500, 50),
  fairB: num('BENCH_FAIR_B', 200, 50),
  fairA: num('BENCH_FAIR_A', 300, 100),
  timeoutS,
  /** Row 3 reports the rate it reached if its calls are not all finished within this budget. */
  queuedBudgetS: Number(process.env.BENCH_QUEUED_BUDGET_S ?? Math.min(100, timeoutS - 30)),
  /** Runs of the variant rows 3b and 4b (APP_DELIVERY_CONCURRENCY lifted to WORKER_CONCURRENCY); 0 skips them. */
  variantRuns: Number(process.env.BENCH_VARIANT_RUNS ?? 1),
  /**
   * Row 7's idle RSS is read after this many seconds without calls (after setup, and after row 3): V8 gives back
   * the heap it grew while busy once its allocation rate has stayed low for a while (20-30 s here). 0 skips it.
   */
  idleS: Number(process.env.BENCH_IDLE_S ?? (QUICK ? 0 : 40)),
};
/** @typedef {typeof cfg} Cfg */
/** BENCH_ROWS=1,2,3b runs only those rows (the others are left out of the report). */
const ONLY = process.env.BENCH_ROWS ? new Set(process.env.BENCH_ROWS.split(',').map((r) => r.trim())) : null;
const selected = (/** @type {string} */ id) => !ONLY || ONLY.has(id) || (id === '7' && ONLY.has('3'));
/** The variant rows lift the per-app cap to the worker's concurrency (50). */
const NO_CAP = { APP_DELIVERY_CONCURRENCY: '50' };

const log = (/** @type {unknown[]} */ ...args) =>
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);
/** An error's message, and its stack when it has one. */
const messageOf = (/** @type {unknown} */ error) => (error instanceof Error ? error.message : String(error));
const stackOf = (/** @type {unknown} */ error) =>
  error instanceof Error ? (error.stack ?? error.message) : String(error);

/**
 * What the rows run against (scenarios.mjs's RowContext), but with no stack between two stacks: main() starts the
 * processes, then each stack in turn.
 * @typedef {Omit<RowContext, 'stack'> & { stack?: Stack }} RunContext
 */

/**
 * The run's context once main() has started its processes: its stack is stopped on exit, errors and signals.
 * @type {RunContext | undefined}
 */
let running;

// ---------------------------------------------------------------------------------------------
// Clean-up of everything started, whatever happens

let stopping = false;
async function cleanupAndExit(/** @type {number} */ code) {
  if (stopping) return;
  stopping = true;
  await Promise.race([
    (async () => {
      await running?.stack?.stop().catch(() => undefined); // drops its schema too
      await stopAll();
    })(),
    new Promise((r) => setTimeout(r, 10_000)),
  ]);
  process.exit(code);
}
process.on('exit', killAllSync);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    log(`${signal}: stopping everything`);
    void cleanupAndExit(130);
  });
}
process.on('unhandledRejection', (error) => log(`unhandled rejection (ignored): ${messageOf(error)}`));

// ---------------------------------------------------------------------------------------------
// Running a row: BENCH_RUNS runs, each under a hard timeout

/**
 * @template T
 * @param {(signal: AbortSignal) => Promise<T>} fn
 * @param {number} ms
 * @returns {Promise<{ value: T } | { timedOut: true }>}
 */
async function withTimeout(fn, ms) {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal); // every request in flight listens to it
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  /** @type {Promise<{ timedOut: true }>} */
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('timed out'));
      resolve({ timedOut: true });
    }, ms);
  });
  try {
    return await Promise.race([fn(controller.signal).then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
    if (!controller.signal.aborted) controller.abort(new Error('done'));
  }
}

/**
 * A row's runs: each run's figures, the notes, and how it ended.
 * @typedef {{ title: string, runs: Metrics[], notes: string[], dirty?: boolean, timedOut?: boolean, failed?: boolean }} RowResult
 */

/** @type {Record<string, RowResult>} */
const results = {};

/**
 * BENCH_LOG_RUNS=1: each run's figures (numbers only) in the log, to follow a row across its runs.
 * @param {Metrics} metrics
 */
function runMetrics(metrics) {
  if (process.env.BENCH_LOG_RUNS !== '1') return '';
  const numbers = Object.entries(metrics).flatMap(([key, value]) =>
    typeof value === 'number' ? [`${key} ${Number(value.toPrecision(3))}`] : [],
  );
  return `: ${numbers.join(', ')}`;
}

/**
 * Runs `fn` `runs` times; returns false when the row failed or timed out (its stack is then
 * suspect). A run that returns `dirty` (work left in flight) gets `restart()` before the next one.
 * @param {string} id
 * @param {string} title
 * @param {(run: number, signal: AbortSignal) => Promise<RowRun>} fn
 * @param {{ runs?: number, restart?: () => Promise<void> }} [options]
 */
async function runRow(id, title, fn, { runs = cfg.runs, restart } = {}) {
  /** @type {RowResult} */
  const row = (results[id] = { title, runs: [], notes: [] });
  for (let run = 1; run <= runs; run++) {
    if (run > 1 && row.dirty && restart) {
      log(`row ${id}: restarting its stack (the last run left work in flight)`);
      await restart();
    }
    log(`row ${id} (${title}): run ${run}/${runs}`);
    const t0 = Date.now();
    try {
      const outcome = await withTimeout((signal) => fn(run, signal), cfg.timeoutS * 1000);
      if ('timedOut' in outcome) {
        row.notes.push(`run ${run} timed out after ${cfg.timeoutS} s${run < runs ? '; later runs skipped' : ''}`);
        row.timedOut = true;
        log(`row ${id}: run ${run} timed out`);
        return false;
      }
      row.runs.push(outcome.value.metrics);
      row.dirty = Boolean(outcome.value.dirty);
      for (const note of outcome.value.notes ?? []) row.notes.push(`run ${run}: ${note}`);
      log(
        `row ${id}: run ${run} done in ${((Date.now() - t0) / 1000).toFixed(1)} s${runMetrics(outcome.value.metrics)}`,
      );
    } catch (error) {
      row.notes.push(`run ${run} failed: ${messageOf(error).split('\n')[0].slice(0, 300)}`);
      row.failed = true;
      log(`row ${id}: run ${run} failed: ${stackOf(error)}`);
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The run

/**
 * Row 7's RSS outside row 3's runs (MiB; null: the process was gone).
 * @type {{ api_idle?: number | null, worker_idle?: number | null, floor_worker_idle?: number | null,
 *   rested?: RestedRss, restedAfterLoad?: RestedRss }}
 */
const memory = {};
/**
 * Round trips for reference (bench process → Postgres / Redis), measured once on the idle main stack.
 * @type {{ pg_p50?: number, redis_p50?: number }}
 */
const reference = {};

/**
 * @param {string} redisUrl
 * @param {Stack} stack
 */
async function measureRoundTrips(redisUrl, stack) {
  /** @type {number[]} */
  const pgTimes = [];
  /** @type {number[]} */
  const redisTimes = [];
  const redis = new Redis(redisUrl);
  try {
    for (let i = -50; i < 500; i++) {
      let t0 = performance.now();
      await stack.db.query('SELECT 1');
      if (i >= 0) pgTimes.push(performance.now() - t0);
      t0 = performance.now();
      await redis.ping();
      if (i >= 0) redisTimes.push(performance.now() - t0);
    }
  } finally {
    redis.disconnect();
  }
  reference.pg_p50 = percentile(pgTimes, 50);
  reference.redis_p50 = percentile(redisTimes, 50);
}

/**
 * The main stack (or one like it, with `extraEnv`) and its fixtures.
 * @param {RunContext} ctx
 * @param {Record<string, string>} [extraEnv]
 */
async function startMain(ctx, extraEnv = {}, label = 'main') {
  const stack = (ctx.stack = await startToolgate({ redisUrl: ctx.redis.url, scale: 1, label, extraEnv }));
  ctx.fx = await mainFixtures({ ...ctx, stack });
  return stack;
}

/**
 * @param {RunContext} ctx
 * @param {() => Promise<unknown>} start
 */
async function restartStack(ctx, start) {
  await ctx.stack?.stop();
  ctx.stack = undefined;
  await start();
}

/**
 * RSS of the API, the worker and the floor worker after `cfg.idleS` seconds without calls.
 * @param {Stack} stack
 * @param {{ pid: number | undefined }} floor
 */
async function restedRss(stack, floor) {
  await new Promise((r) => setTimeout(r, cfg.idleS * 1000));
  return { api: rssMiB(stack.api.pid), worker: rssMiB(stack.worker.pid), floorWorker: rssMiB(floor.pid) };
}
/** @typedef {Awaited<ReturnType<typeof restedRss>>} RestedRss */

/**
 * `ctx` for a row: onStack runs rows only on a stack that started.
 * @param {RunContext} ctx
 * @returns {RowContext}
 */
function onItsStack(ctx) {
  const { stack } = ctx;
  if (!stack) throw new Error('a row needs a Toolgate stack, and none is running');
  return { ...ctx, stack };
}

/**
 * Starts a stack, runs rows on it, then `finish` (if the stack stands), stops it; a failed setup is noted on the rows.
 * @param {RunContext} ctx
 * @param {string} label
 * @param {() => Promise<unknown>} start
 * @param {[id: string, title: string, row: Row, options?: { runs?: number }][]} allRows
 * @param {(stack: Stack) => Promise<void>} [finish]
 */
async function onStack(ctx, label, start, allRows, finish) {
  const rows = allRows.filter(([id]) => selected(id));
  if (rows.length === 0) return;
  log(`starting Toolgate (${label})`);
  try {
    await start();
  } catch (error) {
    for (const [id, title] of rows)
      results[id] = { title, runs: [], notes: [`setup failed: ${messageOf(error).split('\n')[0]}`] };
    log(stackOf(error));
    await ctx.stack?.stop();
    ctx.stack = undefined;
    return;
  }
  for (const [id, title, fn, options = {}] of rows) {
    if (!ctx.stack) {
      log(`restarting the ${label} stack after a failed row`);
      await start();
    }
    const ok = await runRow(id, title, (run, signal) => fn(onItsStack(ctx), run, signal), {
      ...options,
      restart: () => restartStack(ctx, start),
    });
    if (!ok) {
      await ctx.stack?.stop();
      ctx.stack = undefined;
    }
  }
  if (ctx.stack && finish) await finish(ctx.stack);
  await ctx.stack?.stop();
  ctx.stack = undefined;
}

async function main() {
  if (!existsSync(join(ROOT, 'dist/apps/api/src/main.js')) || !existsSync(join(ROOT, 'dist/apps/worker/src/main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (or `npm run bench`)');
  }
  const started = Date.now();
  log(`config: ${JSON.stringify(cfg)}`);
  const redis = await startRedis();
  const handler = await startHandler();
  const handlerClient = new Client(handler.url, { keepAliveTimeout: 30_000 });
  const everything = await startEverything();
  const floor = await startFloorWorker(redis.url, handler.url);
  /** @type {RunContext} */
  const ctx = (running = { cfg, redis, handler, handlerClient, everything, floor });
  log(`redis ${redis.url}, handler ${handler.url}, server-everything ${everything.url}`);

  const queuedTitle = `queued throughput, background, ${cfg.queuedN.toLocaleString('en-US')} calls`;
  // Main stack, Toolgate's defaults (RETRY_TIME_SCALE=1): rows 1, 2, 5, 6, 3 and 7 (memory, idle first).
  await onStack(
    ctx,
    'main stack, defaults',
    async () => {
      const stack = await startMain(ctx);
      if (memory.api_idle === undefined) {
        await new Promise((r) => setTimeout(r, 2_000));
        memory.api_idle = rssMiB(stack.api.pid);
        memory.worker_idle = rssMiB(stack.worker.pid);
        memory.floor_worker_idle = rssMiB(floor.pid);
        log(`RSS just after setup: API ${fmt(memory.api_idle)} MiB, worker ${fmt(memory.worker_idle)} MiB`);
        await measureRoundTrips(redis.url, stack);
        if (cfg.idleS > 0 && selected('3')) {
          const rested = (memory.rested = await restedRss(stack, floor));
          log(`RSS after ${cfg.idleS} s idle: API ${fmt(rested.api)} MiB, worker ${fmt(rested.worker)} MiB`);
        }
      }
    },
    [
      ['1', 'instant call latency, 1 client', instantLatency],
      ['2', 'instant call throughput, 50 clients', instantThroughput],
      [
        '2l',
        'instant call throughput, 50 clients: no limits (floor) / delivery limits and quotas set',
        instantThroughputLimited,
      ],
      ['5', 'MCP proxy (echo)', mcpProxy],
      ['6', 'agent tools/list, 100 tools', toolsList],
      ['3', queuedTitle, (c, run, signal) => queuedThroughput(c, run, signal, { workFloor: true })],
    ],
    async (stack) => {
      if (cfg.idleS > 0 && selected('3') && results['3']?.runs.length)
        memory.restedAfterLoad = await restedRss(stack, floor);
    },
  );
  // Its own stack, so that row 7's "after row 3" reads the load of row 3 alone. No first attempts in the API: this
  // row is the worker meeting a backlog, and the API would deliver calls accepted while the queue is paused.
  await onStack(
    ctx,
    'backlog, API_DELIVERY_CONCURRENCY=0',
    () => startMain(ctx, { API_DELIVERY_CONCURRENCY: '0' }, 'backlog'),
    [
      [
        '3c',
        `queued backlog: ${cfg.queuedN.toLocaleString('en-US')} background calls accepted while delivery is paused`,
        queuedBacklog,
      ],
    ],
  );
  if (cfg.variantRuns > 0) {
    await onStack(ctx, 'APP_DELIVERY_CONCURRENCY=50', () => startMain(ctx, NO_CAP, 'nocap'), [
      ['3b', `${queuedTitle}, APP_DELIVERY_CONCURRENCY=50`, queuedThroughput, { runs: cfg.variantRuns }],
    ]);
  }
  await onStack(
    ctx,
    'fairness stack, defaults',
    async () => {
      const stack = (ctx.stack = await startToolgate({ redisUrl: redis.url, scale: 1, label: 'fair' }));
      ctx.fairFx = await fairnessFixtures({ stack, handler });
    },
    [['8', 'fairness: app B while app A hangs', fairness]],
  );
  await onStack(
    ctx,
    'schedule stack, RETRY_TIME_SCALE=0.01',
    async () => (ctx.stack = await startToolgate({ redisUrl: redis.url, scale: 0.01, label: 'sched' })),
    [
      ['4', 'schedule accuracy, a burst of wait calls to /fail-twice (beyond capacity)', scheduleAccuracy],
      [
        '4c',
        `schedule accuracy, wait calls to /fail-twice at ${cfg.scheduleRate} calls/s (spare capacity)`,
        schedulePaced,
      ],
    ],
  );
  if (cfg.variantRuns > 0) {
    await onStack(
      ctx,
      'schedule stack, RETRY_TIME_SCALE=0.01, APP_DELIVERY_CONCURRENCY=50',
      async () =>
        (ctx.stack = await startToolgate({
          redisUrl: redis.url,
          scale: 0.01,
          label: 'schednocap',
          extraEnv: NO_CAP,
        })),
      [['4b', 'schedule accuracy, APP_DELIVERY_CONCURRENCY=50', scheduleAccuracy, { runs: cfg.variantRuns }]],
    );
  }

  await handlerClient.close();
  const report = buildReport((Date.now() - started) / 1000);
  console.log(report.table);
  console.log(report.cpuTable);
  writeFileSync(join(ROOT, 'bench/RESULTS.md'), report.markdown + keptSections());
  log('wrote bench/RESULTS.md');
}

// ---------------------------------------------------------------------------------------------
// The report

/**
 * Row `id`'s figure `key`, one per run that has it.
 * @param {string} id
 * @param {string} key
 */
const values = (id, key) => (results[id]?.runs ?? []).map((r) => r[key]).filter((v) => typeof v === 'number');
const med = (/** @type {string} */ id, /** @type {string} */ key) => median(values(id, key));

/**
 * How a line of the table is made: the figures of its cells, or their text, and its goal.
 * @typedef {object} LineOptions
 * @property {string} [floor] the floor's figure
 * @property {string} [tg] Toolgate's figure
 * @property {string} [vs] the figure comparing the two
 * @property {'ms' | '×' | ''} [vsUnit]
 * @property {string} [unit]
 * @property {string} [goal]
 * @property {() => boolean | null} [met] whether the goal is met (null: not measured)
 * @property {string} [floorText] the floor's cell, as text
 * @property {string} [tgText] Toolgate's cell, as text
 */

/**
 * @param {string} id
 * @param {string} metric
 * @param {LineOptions} options
 */
function line(id, metric, { floor, tg, vs, vsUnit = '', unit = 'ms', goal = '', met, floorText, tgText }) {
  const floorCell = floorText ?? (floor ? fmtSpread(values(id, floor), unit) : '–');
  const tgCell = tgText ?? (tg ? fmtSpread(values(id, tg), unit) : '–');
  let vsCell = '–';
  if (vs) {
    const s = spread(values(id, vs));
    const sign = vsUnit === 'ms' && s.median > 0 ? '+' : '';
    vsCell =
      s.n === 0
        ? '–'
        : `${sign}${vsUnit === '×' ? `${fmt(s.median)}×` : fmt(s.median, vsUnit)}${s.n > 1 ? ` (${fmt(s.min)}–${fmt(s.max)})` : ''}`;
  }
  let metCell = '';
  if (met !== undefined) {
    const verdict = met();
    metCell = verdict === null ? '–' : verdict ? 'yes' : '**no**';
  }
  return { id, title: results[id]?.title ?? '', metric, floor: floorCell, tg: tgCell, vs: vsCell, goal, met: metCell };
}

/** @typedef {ReturnType<typeof line>} Line */

const known = (/** @type {unknown} */ v) => typeof v === 'number' && Number.isFinite(v);
/**
 * @param {number} value
 * @param {(value: number) => boolean} test
 */
const check = (value, test) => (known(value) ? test(value) : null);

/**
 * The CPU measurement `key` of a run's figures, if it has one.
 * @param {Metrics} metrics
 * @param {string} key
 * @returns {CpuPerCall | undefined}
 */
function cpuIn(metrics, key) {
  const value = metrics[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** The processes the issue's CPU goals count: Toolgate's two, Postgres and Redis (not the handler or the client). */
const STACK_PARTS = ['api', 'worker', 'postgres', 'redis'];
/** @param {CpuPerCall | undefined} cpu */
const stackCpu = (cpu) => (cpu ? STACK_PARTS.reduce((sum, p) => sum + (known(cpu[p]) ? cpu[p] : 0), 0) : undefined);

/**
 * Each run's CPU per call summed over STACK_PARTS, Toolgate's and the floor of its work's (rows 2 and 3, whose floor
 * processes stand in the API's and the worker's places): the measure of the CPU goals.
 */
function deriveStackCpu() {
  for (const r of [...(results['2']?.runs ?? []), ...(results['3']?.runs ?? [])]) {
    const tg = (r.tg_stack_cpu = stackCpu(cpuIn(r, 'cpu_tg')));
    const work = (r.work_stack_cpu = stackCpu(cpuIn(r, 'cpu_work_floor')));
    if (tg !== undefined && work !== undefined && known(tg) && known(work)) r.stack_cpu_ratio = tg / work;
  }
}

/**
 * The median over row `id`'s runs of one part (`api`, `postgres`...) of a CPU measurement `key`.
 * @param {string} id
 * @param {string} key
 * @param {string} part
 */
const medPart = (id, key, part) =>
  median((results[id]?.runs ?? []).map((r) => cpuIn(r, key)?.[part]).filter((v) => v !== undefined));

/**
 * Row `id`'s CPU goal: CPU per call over Toolgate's processes, Postgres and Redis, against the floor of its work.
 * @param {string} id
 * @param {number} goalMs
 */
function stackCpuLine(id, goalMs) {
  return line(id, 'CPU per call, API + worker + Postgres + Redis (floor: the floor of its work, no framework)', {
    floor: 'work_stack_cpu',
    tg: 'tg_stack_cpu',
    vs: 'stack_cpu_ratio',
    vsUnit: '×',
    goal: `≤ ${goalMs.toFixed(1)} ms`,
    met: () => check(med(id, 'tg_stack_cpu'), (v) => v <= goalMs),
  });
}

function tableLines() {
  deriveStackCpu();
  /** @type {Line[]} */
  const L = [];
  L.push(
    line('1', 'p50', {
      floor: 'floor_p50',
      tg: 'tg_p50',
      vs: 'added_p50',
      vsUnit: 'ms',
      goal: 'added p50 ≤ 1 ms',
      met: () => check(med('1', 'added_p50'), (v) => v <= 1),
    }),
  );
  L.push(
    line('1', 'p99', {
      floor: 'floor_p99',
      tg: 'tg_p99',
      vs: 'added_p99',
      vsUnit: 'ms',
      goal: 'added p99 ≤ 5 ms',
      met: () => check(med('1', 'added_p99'), (v) => v <= 5),
    }),
  );
  L.push(
    line('1', 'p50 against the floor of its work (bench/instant-floor-server.mjs, no framework)', {
      floor: 'work_p50',
      tg: 'tg_p50',
      vs: 'over_work_p50',
      vsUnit: 'ms',
    }),
  );
  L.push(
    line('2', 'calls/s', {
      floor: 'floor_rate',
      tg: 'tg_rate',
      unit: '/s',
      vs: 'ratio',
      vsUnit: '×',
      goal: '≥ 3,000 calls/s',
      met: () => check(med('2', 'tg_rate'), (v) => v >= 3000),
    }),
  );
  L.push(line('2', 'p99 under load', { floor: 'floor_p99', tg: 'tg_p99' }));
  L.push(
    line('2', 'calls/s against the floor of its work (bench/instant-floor-server.mjs, no framework)', {
      floor: 'work_floor_rate',
      tg: 'tg_rate',
      unit: '/s',
      vs: 'work_ratio',
      vsUnit: '×',
    }),
  );
  if (results['2']) L.push(stackCpuLine('2', 0.5));
  L.push(
    line('2l', 'calls/s, limits set (never reached) against none', {
      floor: 'none_rate',
      tg: 'set_rate',
      unit: '/s',
      vs: 'ratio',
      vsUnit: '×',
      goal: 'none ≥ 1,800 calls/s',
      met: () => check(med('2l', 'none_rate'), (v) => v >= 1800),
    }),
  );
  L.push(line('2l', 'p99 under load', { floor: 'none_p99', tg: 'set_p99' }));
  for (const id of ['3', '3b'].filter((k) => results[k])) {
    L.push(
      line(id, 'end to end, calls/s', {
        floor: 'floor_rate',
        tg: 'tg_rate',
        unit: '/s',
        vs: 'ratio',
        vsUnit: '×',
        goal: '≥ 2,000 calls/s',
        met: () => check(med(id, 'tg_rate'), (v) => v >= 2000),
      }),
    );
    L.push(
      line(id, 'accepted (enqueue only), calls/s', { floor: 'floor_enqueue_rate', tg: 'tg_accept_rate', unit: '/s' }),
    );
    if (known(med(id, 'work_floor_rate')))
      L.push(
        line(id, `end to end, calls/s against the floor of its work (${QUEUED_WORK_FLOOR}, no framework)`, {
          floor: 'work_floor_rate',
          tg: 'tg_rate',
          unit: '/s',
          vs: 'work_ratio',
          vsUnit: '×',
        }),
      );
    if (id === '3') L.push(stackCpuLine('3', 1.0));
  }
  if (results['3c']) {
    L.push(line('3c', 'first call delivered, after the resume', { floor: 'floor_first', tg: 'tg_first' }));
    L.push(
      line('3c', 'backlog drained, calls/s', {
        floor: 'floor_rate',
        tg: 'tg_rate',
        unit: '/s',
        vs: 'ratio',
        vsUnit: '×',
      }),
    );
  }
  for (const id of ['4', '4b', '4c'].filter((k) => results[k])) {
    // Within capacity (4c) a retry is on time; beyond it (4, 4b) the due ones run earliest-due first.
    const spare = id === '4c';
    for (const [a, off] of [
      ['a2', '150 ms'],
      ['a3', '600 ms'],
    ]) {
      L.push(line(id, `attempt ${a[1]} (offset ${off}) lateness p50`, { floor: `floor_${a}_p50`, tg: `tg_${a}_p50` }));
      L.push(
        line(id, `attempt ${a[1]} lateness p99`, {
          floor: `floor_${a}_p99`,
          tg: `tg_${a}_p99`,
          ...(spare ? { goal: 'p99 ≤ 50 ms', met: () => check(med(id, `tg_${a}_p99`), (v) => v <= 50) } : {}),
        }),
      );
      L.push(
        line(id, `attempt ${a[1]} lateness max (min)`, {
          tgText: `${fmtSpread(values(id, `tg_${a}_max`), 'ms')} (min ${fmt(med(id, `tg_${a}_min`))})`,
          floorText: `${fmtSpread(values(id, `floor_${a}_max`), 'ms')} (min ${fmt(med(id, `floor_${a}_min`))})`,
        }),
      );
    }
  }
  L.push(
    line('5', 'tools/call p50', {
      floor: 'floor_p50',
      tg: 'tg_p50',
      vs: 'ratio_p50',
      vsUnit: '×',
      goal: '≤ 1.5× floor',
      met: () => check(med('5', 'ratio_p50'), (v) => v <= 1.5),
    }),
  );
  L.push(line('5', 'tools/call p99', { floor: 'floor_p99', tg: 'tg_p99', vs: 'ratio_p99', vsUnit: '×' }));
  L.push(
    line('5', 'tools/call p50 against the floor of its work (bench/mcp-floor-proxy.mjs, no framework)', {
      floor: 'work_p50',
      tg: 'tg_p50',
      vs: 'over_work_p50',
      vsUnit: '×',
    }),
  );
  L.push(
    line('6', 'REST GET /tools p50 (floor: same bytes from node:http)', {
      floor: 'floor_rest_p50',
      tg: 'tg_rest_p50',
      goal: 'p50 ≤ 5 ms',
      met: () => check(med('6', 'tg_rest_p50'), (v) => v <= 5),
    }),
  );
  L.push(line('6', 'REST GET /tools p99', { floor: 'floor_rest_p99', tg: 'tg_rest_p99' }));
  L.push(
    line('6', `MCP tools/list p50 (floor: server-everything, ${fmt(med('6', 'floor_mcp_tools'))} tools)`, {
      floor: 'floor_mcp_p50',
      tg: 'tg_mcp_p50',
      goal: 'p50 ≤ 5 ms',
      met: () => check(med('6', 'tg_mcp_p50'), (v) => v <= 5),
    }),
  );
  L.push(line('6', 'MCP tools/list p99', { floor: 'floor_mcp_p99', tg: 'tg_mcp_p99' }));
  const mem = (/** @type {number | null | undefined} */ v) => (known(v) ? `${fmt(v)} MiB` : '–');
  if (results['3']) results['7'] = { title: 'memory (RSS)', runs: results['3'].runs, notes: [] };
  const idleGoal = (/** @type {number | null} */ v) => ({
    goal: '≤ 150 MiB',
    met: () => (v === null ? null : check(v, (x) => x <= 150)),
  });
  const { rested, restedAfterLoad } = memory;
  const idleS = cfg.idleS;
  L.push(line('7', 'API just after setup (2 s)', { tgText: mem(memory.api_idle) }));
  if (rested) {
    L.push(
      line('7', `API idle (${idleS} s without calls after setup)`, {
        tgText: mem(rested.api),
        ...idleGoal(rested.api),
      }),
    );
  }
  L.push(line('7', 'API max during row 3', { tg: 'rss_api_max', unit: 'MiB' }));
  L.push(line('7', 'API at end of row 3', { tg: 'rss_api_end', unit: 'MiB' }));
  if (restedAfterLoad) {
    L.push(line('7', `API idle again (${idleS} s after row 3)`, { tgText: mem(restedAfterLoad.api) }));
  }
  L.push(
    line('7', 'worker just after setup (2 s; floor: the BullMQ floor worker)', {
      floorText: mem(memory.floor_worker_idle),
      tgText: mem(memory.worker_idle),
    }),
  );
  if (rested) {
    L.push(
      line('7', `worker idle (${idleS} s without calls after setup; floor: floor worker)`, {
        floorText: mem(rested.floorWorker),
        tgText: mem(rested.worker),
        ...idleGoal(rested.worker),
      }),
    );
  }
  L.push(
    line('7', 'worker max during row 3 (floor: floor worker)', {
      floor: 'rss_floor_worker_max',
      tg: 'rss_worker_max',
      unit: 'MiB',
    }),
  );
  L.push(line('7', 'worker at end of row 3', { tg: 'rss_worker_end', unit: 'MiB' }));
  if (restedAfterLoad) {
    L.push(
      line('7', `worker idle again (${idleS} s after row 3; floor: floor worker)`, {
        floorText: mem(restedAfterLoad.floorWorker),
        tgText: mem(restedAfterLoad.worker),
      }),
    );
  }
  L.push(
    line('8', "B p50, POST → succeeded (floor: B alone; Toolgate: with A's load)", {
      floor: 'alone_p50',
      tg: 'loaded_p50',
      vs: 'ratio_p50',
      vsUnit: '×',
    }),
  );
  L.push(
    line('8', "B p99 (floor: B alone; Toolgate: with A's load)", {
      floor: 'alone_p99',
      tg: 'loaded_p99',
      vs: 'ratio_p99',
      vsUnit: '×',
      goal: 'with A ≤ 2× alone',
      met: () => check(med('8', 'ratio_p99'), (v) => v <= 2),
    }),
  );
  const order = ['1', '2', '2l', '3', '3b', '3c', '4', '4b', '4c', '5', '6', '7', '8'];
  // Array#sort is stable: the lines of a row keep their order.
  return L.filter((l) => results[l.id]).sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
}

/** The processes whose CPU per call the CPU table shows, and sums up as "all". */
const CPU_PARTS = /** @type {const} */ ([
  'api',
  'worker',
  'postgres',
  'redis',
  'handler',
  'floor_worker',
  'bench_client',
]);

/**
 * A line of the CPU table: the median over a row's runs of each process's CPU per unit of work, their sum, and the
 * machine's busy share.
 * @typedef {{ id: string, label: string, per: string, total: number, machine_busy_pct: number }
 *   & Record<typeof CPU_PARTS[number], number>} CpuRow
 */

function cpuRows() {
  /** @type {CpuRow[]} */
  const rows = [];
  /**
   * @param {string} id
   * @param {string} label
   * @param {string} key
   * @param {string} per
   */
  const add = (id, label, key, per) => {
    const runs = (results[id]?.runs ?? []).map((r) => cpuIn(r, key)).filter((cpu) => cpu !== undefined);
    if (!runs.length) return;
    const part = (/** @type {string} */ p) => median(runs.map((r) => r[p]));
    /** @type {Record<typeof CPU_PARTS[number], number>} */
    const parts = {
      api: part('api'),
      worker: part('worker'),
      postgres: part('postgres'),
      redis: part('redis'),
      handler: part('handler'),
      floor_worker: part('floor_worker'),
      bench_client: part('bench_client'),
    };
    const total = CPU_PARTS.reduce((sum, p) => sum + (known(parts[p]) ? parts[p] : 0), 0);
    rows.push({ id, label, per, ...parts, total, machine_busy_pct: part('machine_busy_pct') });
  };
  add('1', 'instant latency: floor', 'cpu_floor', 'request');
  add('1', 'instant latency: Toolgate', 'cpu_tg', 'call');
  add('2', 'instant throughput: floor', 'cpu_floor', 'request');
  add('2', 'instant throughput: Toolgate', 'cpu_tg', 'call');
  add('2l', 'instant throughput: no limits', 'cpu_none', 'call');
  add('2l', 'instant throughput: limits set', 'cpu_set', 'call');
  add('3', 'queued: floor (BullMQ)', 'cpu_floor', 'job');
  add('3', 'queued: Toolgate', 'cpu_tg', 'call');
  add('3', 'queued: floor of its work (accepting / delivering process in api / worker)', 'cpu_work_floor', 'call');
  add('3b', 'queued, cap 50: Toolgate', 'cpu_tg', 'call');
  add('3c', 'queued backlog: floor (BullMQ)', 'cpu_floor', 'job');
  add('3c', 'queued backlog: Toolgate', 'cpu_tg', 'call');
  add('4c', 'retries at the paced rate: Toolgate', 'cpu_tg', 'attempt');
  add('5', 'MCP echo: floor', 'cpu_floor', 'call');
  add('5', 'MCP echo: Toolgate', 'cpu_tg', 'call');
  return rows;
}

/**
 * @param {string[]} headers
 * @param {unknown[][]} rows
 */
function markdownTable(headers, rows) {
  const esc = (/** @type {unknown} */ s) => String(s).replace(/\|/g, '\\|');
  return [
    `| ${headers.join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

const QUEUED_WORK_FLOOR = 'bench/queued-floor-accept.mjs and queued-floor-deliver.mjs';

/**
 * Row 3 against the floor of a queued call's own work (bench/queued-floor-*.mjs), when measured.
 * @param {CpuRow} c
 * @param {number} goal
 */
function queuedWorkFloorLine(c, goal) {
  const rate = med('3', 'work_floor_rate');
  const w = cpuRows().find((row) => row.label.startsWith('queued: floor of its work'));
  if (!known(rate) || !w) return '';
  return (
    `The floor of the call's own work (${QUEUED_WORK_FLOOR}: the same parsing, body, encryption, batched insert ` +
    `and BullMQ job, then claim, signature, POST and batched record, on node:http, pg, BullMQ, undici and ` +
    `node:crypto, in two processes, without a framework) ran ${fmt(rate)} calls/s at ${fmt(w.total)} ms of CPU per ` +
    `call in all (accepting ${fmt(w.api)}, delivering ${fmt(w.worker)}, Postgres ${fmt(w.postgres)}, Redis ` +
    `${fmt(w.redis)}): Toolgate spends ${fmt(c.total - w.total)} ms per call over its work ` +
    `(${fmt(c.total / w.total)}×). ` +
    (w.total > (os.cpus().length * 1000) / goal
      ? `At the work's own cost ${os.cpus().length} cores cap the rate near ` +
        `${fmt((os.cpus().length * 1000) / w.total)} ` +
        `calls/s: through a queue, the goal is beyond what the work costs on this machine at the least (Toolgate's ` +
        `API makes up to APP_DELIVERY_CONCURRENCY first attempts of an app itself, without the queue and its claim). `
      : '')
  );
}

/**
 * Row 2's API against the floor of an instant call's own work (bench/instant-floor-server.mjs), when measured.
 * @param {CpuRow} c
 */
function workFloorLine(c) {
  const rate = med('2', 'work_floor_rate');
  const server = medPart('2', 'cpu_work_floor', 'api');
  const postgres = medPart('2', 'cpu_work_floor', 'postgres');
  if (!known(rate) || !known(server)) return '';
  return (
    `The floor of the call's own work (bench/instant-floor-server.mjs: the same parsing, body, encryption, signature, ` +
    `POST and batched write on node:http, pg, undici and node:crypto, without a framework) served ${fmt(rate)} ` +
    `calls/s at ${fmt(server)} ms of CPU per call in its process and ${fmt(postgres)} ms ` +
    `in Postgres: the API spends ${fmt(c.api - server)} ms per call over its work (${fmt(c.api / server)}×). `
  );
}

/** Row 5 against the floor of a proxy's own work (bench/mcp-floor-proxy.mjs), when measured. */
function mcpWorkFloorLine() {
  const work = med('5', 'work_p50');
  const workRatio = med('5', 'work_ratio_p50');
  if (!known(work) || !known(workRatio)) return '';
  return (
    ` The floor of a proxy's own work (bench/mcp-floor-proxy.mjs: it relays the call on the client's session and ` +
    `stores it with its attempt in one statement before it answers) takes ${fmt(work)} ms, ${fmt(workRatio)}× the ` +
    `direct call, and Toolgate ${fmt(med('5', 'over_work_p50'))}× that.` +
    (workRatio > 1.5 ? ' The goal is below what the work costs on this machine at the least.' : '')
  );
}

/** Row 1 against the floor of an instant call's own work, one call at a time, when measured. */
function workFloorLatencyLine() {
  const work = med('1', 'work_p50');
  const workAdded = med('1', 'work_added_p50');
  if (!known(work) || !known(workAdded)) return '';
  return (
    ` The floor of the call's own work (row 2's bench/instant-floor-server.mjs, one call at a time) answers at ` +
    `${fmt(work)} ms p50: the work itself adds ${fmt(workAdded)} ms over the bare POST (a write that waits for its ` +
    `commit's flush to disk, and two more round trips on loopback), and Toolgate ${fmt(med('1', 'over_work_p50'))} ms ` +
    `over that.` +
    (workAdded > 1 ? ' The goal is below what the work costs on this machine at the least.' : '')
  );
}

/**
 * @param {Line[]} lines
 * @param {CpuRow[]} cpu
 */
function obstacles(lines, cpu) {
  const out = [];
  const r1 = {
    floor: med('1', 'floor_p50'),
    tg: med('1', 'tg_p50'),
    added: med('1', 'added_p50'),
    added99: med('1', 'added_p99'),
  };
  const cpuOf = (/** @type {string} */ label) => cpu.find((c) => c.label === label);
  const c1 = cpuOf('instant latency: Toolgate');
  if (known(r1.added)) {
    out.push(
      `- **Instant calls, one client**: Toolgate adds ${fmt(r1.added)} ms at p50 and ${fmt(r1.added99)} ms ` +
        `at p99 over a bare POST to the same handler (${fmt(r1.floor)} ms). ` +
        (c1
          ? `One call costs ${fmt(c1.api)} ms of API CPU and ${fmt(c1.postgres)} ms of Postgres CPU ` +
            `(${fmt(c1.total)} ms in all processes), so most of the added time is CPU work in the API and the ` +
            `database round trips it waits on, not the network. `
          : '') +
        (known(reference.pg_p50)
          ? `One SELECT 1 round trip from a client takes ${fmt(reference.pg_p50)} ms here, a Redis PING ${fmt(reference.redis_p50)} ms. `
          : '') +
        (r1.added <= 1
          ? 'The p50 goal (≤ 1 ms) is met.'
          : `The p50 goal (≤ 1 ms) is missed by ${fmt(r1.added - 1)} ms.`) +
        workFloorLatencyLine(),
    );
  }
  for (const [id, label, goal, name] of /** @type {const} */ ([
    ['2', 'instant throughput: Toolgate', 3000, 'Instant throughput (50 clients)'],
    ['3', 'queued: Toolgate', 2000, 'Queued throughput (defaults)'],
    ['3b', 'queued, cap 50: Toolgate', 2000, 'Queued throughput with APP_DELIVERY_CONCURRENCY=50'],
  ])) {
    const rate = med(id, 'tg_rate');
    const c = cpuOf(label);
    if (!known(rate) || !c) continue;
    const parts = CPU_PARTS.filter((p) => known(c[p]) && c[p] > 0).sort((a, b) => c[b] - c[a]);
    const bound = (os.cpus().length * 1000) / c.total;
    // A Node process runs its JavaScript on one thread: one near a whole core is the limit before the machine is.
    const oneCore = /** @type {const} */ (['api', 'worker'])
      .filter((p) => known(c[p]) && (c[p] * rate) / 1000 >= 0.85)
      .map(
        (p) =>
          `The ${p} process used ${fmt((c[p] * rate) / 10)} % of one core, and a Node process runs its JavaScript on ` +
          `one: it is the limit before the machine is. At ${goal.toLocaleString('en-US')}/s it may spend at most ` +
          `${fmt(1000 / goal)} ms per call (now ${fmt(c[p])}), or run as more processes (any number of each serve). `,
      )
      .join('');
    out.push(
      `- **${name}**: ${fmt(rate)} calls/s (${fmt(med(id, 'ratio'))}× the floor's ${fmt(med(id, 'floor_rate'))}/s; goal ` +
        `${goal.toLocaleString('en-US')}/s). ` +
        `The machine was ${fmt(c.machine_busy_pct)} % busy; each call cost ${fmt(c.total)} ms of CPU in all: ` +
        `${parts.map((p) => `${p.replace('_', ' ')} ${fmt(c[p])}`).join(', ')} (ms). ` +
        oneCore +
        (id === '2' ? workFloorLine(c) : '') +
        (id === '3' ? queuedWorkFloorLine(c, goal) : '') +
        `At Toolgate's ${fmt(c.total)} ms per call ${os.cpus().length} cores cap the rate near ` +
        `${fmt(bound)} calls/s, so ` +
        (rate >= goal
          ? 'the goal is met.'
          : `the goal needs the CPU per call cut by about ${fmt((1 - rate / goal) * 100)} % (the largest share: ` +
            `${parts[0]?.replace('_', ' ')}), or more cores.`),
    );
  }
  const capped = med('3', 'tg_rate');
  const uncapped = med('3b', 'tg_rate');
  if (known(capped) && known(uncapped)) {
    out.push(
      `- **The per-app cap on one busy app**: all of row 3's calls belong to one app, so at most ` +
        `APP_DELIVERY_CONCURRENCY (default 25) of them are delivered at once per worker; ` +
        `a job over the cap waits outside the worker for about as long as its place in the app's line takes ` +
        `to clear, then asks again. With the cap lifted to 50 (row 3b) the same load runs at ` +
        `${fmt(uncapped)} calls/s instead of ${fmt(capped)} (${fmt(uncapped / capped)}×).`,
    );
  }
  // How busy row 4c's load kept the worker and the machine: "spare capacity" is a premise to check, not a given.
  const pacedLoad = () => {
    const paced = cpuOf('retries at the paced rate: Toolgate');
    const workerCore = med('4c', 'tg_worker_core_pct');
    if (!paced || !known(workerCore)) return '';
    return (
      ` Each attempt cost ${fmt(paced.total)} ms of CPU in all (worker ${fmt(paced.worker)}, Postgres ` +
      `${fmt(paced.postgres)}, API ${fmt(paced.api)}):` +
      ` the worker used about ${fmt(workerCore)} % of a core and the machine was ${fmt(paced.machine_busy_pct)} % busy` +
      (paced.machine_busy_pct > 70 ? ', so on this machine the paced rate left little to spare.' : '.')
    );
  };
  const late = Math.max(med('4', 'tg_a2_p99'), med('4', 'tg_a3_p99'));
  const lateNoCap = Math.max(med('4b', 'tg_a2_p99'), med('4b', 'tg_a3_p99'));
  const latePaced = Math.max(med('4c', 'tg_a2_p99'), med('4c', 'tg_a3_p99'));
  if (known(late) || known(latePaced)) {
    const floorLate = Math.max(med('4', 'floor_a2_p99'), med('4', 'floor_a3_p99'));
    /** @type {string[]} */
    const parts = [];
    if (known(latePaced))
      parts.push(
        `At ${cfg.scheduleRate} calls/s (row 4c, spare capacity) attempts 2 and 3 arrive at most ${fmt(latePaced)} ms late at p99 ` +
          `(bare BullMQ: ${fmt(Math.max(med('4c', 'floor_a2_p99'), med('4c', 'floor_a3_p99')))} ms): ` +
          (latePaced <= 50 ? 'within the 50 ms goal.' : 'over the 50 ms goal.') +
          pacedLoad(),
      );
    if (known(late))
      parts.push(
        `A burst of ${cfg.scheduleN} calls at once (row 4) asks for more attempts within the offsets than the worker delivers: ` +
          `retries arrive up to ${fmt(late)} ms late at p99 (bare BullMQ, with no database and no per-app cap: ${fmt(floorLate)} ms). ` +
          'Then the worker runs the due attempts it holds earliest-due first (apps/worker/src/app-delivery-limiter.ts, ' +
          'its unit test), and each attempt’s lateness is in its /metrics (toolgate_delivery_attempt_lateness_seconds).' +
          (known(lateNoCap) ? ` With APP_DELIVERY_CONCURRENCY=50 (row 4b): p99 ${fmt(lateNoCap)} ms.` : ''),
      );
    out.push(`- **Retry schedule**: ${parts.join(' ')}`);
  }
  const mcp = med('5', 'ratio_p50');
  if (known(mcp)) {
    const toolgate = cpuOf('MCP echo: Toolgate');
    out.push(
      `- **MCP proxy**: a tools/call through Toolgate takes ${fmt(med('5', 'tg_p50'))} ms at p50, ` +
        `${fmt(mcp)}× the direct call (${fmt(med('5', 'floor_p50'))} ms); ` +
        (mcp <= 1.5
          ? 'within the 1.5× goal.'
          : `over the 1.5× ` +
            `goal${toolgate ? `: the API spends ${fmt(toolgate.api)} ms of CPU and Postgres ${fmt(toolgate.postgres)} ms per call` : ''} ` +
            `(the agent endpoint answers through the MCP SDK's server, calls the app's MCP server over its own ` +
            `session with the SDK's client, and stores the call before it calls, and its attempt before it answers).`) +
        mcpWorkFloorLine(),
    );
  }
  const list = [med('6', 'tg_rest_p50'), med('6', 'tg_mcp_p50')];
  if (list.every(known)) {
    out.push(
      `- **tools/list, 100 tools**: REST ${fmt(list[0])} ms, MCP ${fmt(list[1])} ms at p50 (goal ≤ 5 ms; ` +
        `${med('6', 'rest_bytes') ? `${fmt(med('6', 'rest_bytes') / 1024)} KiB of JSON; ` : ''}the same ` +
        `bytes from plain node:http: ${fmt(med('6', 'floor_rest_p50'))} ms).`,
    );
  }
  if (known(med('3', 'rss_api_max'))) {
    out.push(
      `- **Memory**: API ${fmt(memory.api_idle)} MiB just after setup → ${fmt(med('3', 'rss_api_max'))} ` +
        `MiB max under the queued load; worker ${fmt(memory.worker_idle)} → ` +
        `${fmt(med('3', 'rss_worker_max'))} MiB (the bare BullMQ floor worker: ` +
        `${fmt(med('3', 'rss_floor_worker_max'))} MiB).`,
    );
    if (memory.rested) {
      const { rested, restedAfterLoad } = memory;
      const again = restedAfterLoad
        ? `; ${cfg.idleS} s after row 3's load: API ${fmt(restedAfterLoad.api)}, worker ${fmt(restedAfterLoad.worker)} MiB`
        : '';
      out.push(
        `  After ${cfg.idleS} s without calls V8 has given back the young generation and the heap it grew while busy: ` +
          `API ${fmt(rested.api)}, worker ${fmt(rested.worker)} MiB idle after setup${again}.`,
      );
    }
  }
  const fair = med('8', 'ratio_p99');
  if (known(fair)) {
    out.push(
      `- **Fairness**: app B's p99 from POST to succeeded is ${fmt(med('8', 'alone_p99'))} ms alone and ` +
        `${fmt(med('8', 'loaded_p99'))} ms while app A has ${cfg.fairA} calls hanging (${fmt(fair)}×). ` +
        (fair <= 2
          ? `A slow app does not hold B back. B's own latency alone (p50 ${fmt(med('8', 'alone_p50'))} ms for a ` +
            `handler that answers at once) is that of a burst of ${cfg.fairB} calls of one app` +
            (cfg.fairB > 25
              ? ' against the per-app cap (25 in flight by default; a job over it waits for a slot of its app)'
              : '') +
            '.'
          : `One app's hanging handler holds every other app's deliveries back: with WORKER_CONCURRENCY=50 and a ` +
            `10 s attempt timeout, A's calls occupy every worker slot (${fmt(med('8', 'hanging'))} requests were ` +
            `hanging at the handler) and B's jobs wait behind them in the shared queue. A per-app cap on ` +
            `deliveries in flight (APP_DELIVERY_CONCURRENCY, in progress) is what this row checks.`),
    );
  }
  for (const [id, row] of Object.entries(results)) {
    if (row.timedOut || row.failed)
      out.push(`- Row ${id} (${row.title}) ${row.timedOut ? 'timed out' : 'failed'}: ${row.notes.at(-1)}`);
  }
  const missed = lines.filter((l) => l.met === '**no**').map((l) => `${l.id} ${l.metric}`);
  if (missed.length) out.unshift(`Goals missed: ${missed.join('; ')}.`, '');
  return out.join('\n');
}

function machineInfo() {
  const cpuModel = (() => {
    try {
      return /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model;
    } catch {
      return os.cpus()[0]?.model;
    }
  })();
  const sh = (/** @type {string} */ cmd) => {
    try {
      return execSync(cmd, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '?';
    }
  };
  const commit = sh('git rev-parse --short HEAD');
  const dirty = sh('git status --porcelain --untracked-files=no') ? ' (with uncommitted changes)' : '';
  return {
    nproc: sh('nproc'),
    node: process.version,
    cpuModel,
    memGiB: os.totalmem() / 2 ** 30,
    commit: `${commit}${dirty}`,
    redis: sh('redis-server --version').split(' ')[2] ?? '?',
  };
}

/** @param {number} seconds */
function buildReport(seconds) {
  const lines = tableLines();
  const headers = ['#', 'row', 'metric', 'floor', 'Toolgate', 'Toolgate vs floor', 'goal', 'met'];
  const tableRows = lines.map((l) => [l.id, l.title, l.metric, l.floor, l.tg, l.vs, l.goal, l.met]);
  const table = markdownTable(headers, tableRows);
  const cpu = cpuRows();
  const cpuTable = markdownTable(
    ['#', 'side', 'per', ...CPU_PARTS.map((p) => p.replace('_', ' ')), 'all', 'machine busy'],
    cpu.map((c) => [
      c.id,
      c.label,
      c.per,
      ...CPU_PARTS.map((p) => fmt(c[p])),
      fmt(c.total),
      `${fmt(c.machine_busy_pct)} %`,
    ]),
  );
  const info = machineInfo();
  const notes = Object.entries(results)
    .filter(([, r]) => r.notes.length)
    .map(([id, r]) => `- Row ${id} (${r.title}): ${r.notes.join('; ')}`)
    .join('\n');
  const setup = [
    `- machine: \`nproc\` = ${info.nproc}, ${info.cpuModel}, ${fmt(info.memGiB)} GiB RAM; shared with other work while it ran`,
    `- node ${info.node}, redis-server ${info.redis}, Postgres at 127.0.0.1:5432` +
      `${VIA_PGBOUNCER ? ' through PgBouncer (transaction mode, BENCH_PGBOUNCER=1)' : ''}; Toolgate commit ${info.commit}`,
    `- runs: ${cfg.runs}${cfg.quick ? ' (BENCH_QUICK=1: small N, not for conclusions)' : ''} ` +
      `(rows 3b and 4b: ${cfg.variantRuns}); cells are the median of the runs with (min–max) across runs`,
    `- round trips for reference (from the bench process, idle stack): Postgres \`SELECT 1\` p50 ` +
      `${fmt(reference.pg_p50, 'ms')}, Redis PING p50 ${fmt(reference.redis_p50, 'ms')}`,
    '- Toolgate runs with its defaults (APP_DELIVERY_CONCURRENCY=25, WORKER_CONCURRENCY=50) except rows 3b and 4b, ' +
      'which lift APP_DELIVERY_CONCURRENCY to 50',
    `- N: latency ${cfg.latencyN} (+${Math.max(cfg.warmup, LATENCY_WARMUP)} warm-up a side), ` +
      `throughput ${cfg.throughputN}, queued ${cfg.queuedN}, schedule ${cfg.scheduleN}, MCP ${cfg.mcpN}, ` +
      `list ${cfg.listN}, fairness B ${cfg.fairB} / A ${cfg.fairA}; 50 clients where in flight`,
  ].join('\n');
  const markdown = `# Toolgate benchmark results

Written by \`node bench/run.mjs\` on ${new Date().toISOString()} (${fmt(seconds / 60)} min). What each row measures: [README.md](README.md).

${setup}

${table}

## CPU time per call (ms, median of runs)

Measured from /proc (user + system) over each measured phase and divided by the calls made: who spends the two cores.
"postgres" is every \`postgres\` process on the machine (other users of it count too); "all" is the sum of the columns.

${cpuTable}

## What stands in the way

${obstacles(lines, cpu)}
${notes ? `\n## Notes from the runs\n\n${notes}\n` : ''}`;
  return { table, cpuTable, markdown };
}

main()
  .then(() => cleanupAndExit(0))
  .catch(async (error) => {
    log(`failed: ${error.stack ?? error.message}`);
    await cleanupAndExit(1);
  });

/** The section bench/storage.mjs writes (2 million stored calls), kept when this run rewrites RESULTS.md. */
function keptSections() {
  const path = join(ROOT, 'bench/RESULTS.md');
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const start = previous.indexOf('## 2 million stored calls');
  if (start === -1) return '';
  const end = previous.indexOf('\n## ', start + 1);
  return `\n${previous.slice(start, end === -1 ? undefined : end + 1).trimEnd()}\n`;
}
