// The benchmark rows. Each `run` function measures the floor and Toolgate once, side by side,
// and returns {metrics: {name: number | object}, notes: [string]}. run.mjs repeats them and
// reports medians with the spread.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Client, Pool } from 'undici';
import { CALL_ARGUMENTS, WEBHOOK_BODY } from './lib/body.mjs';
import { cpuProbe } from './lib/cpu.mjs';
import { agentWith, constructorApp, httpTool, mcpApp, mcpConnect, projectToken } from './lib/fixtures.mjs';
import { inParallel, paced } from './lib/load.mjs';
import { rssMiB, sampleRss } from './lib/procs.mjs';
import { startInstantFloor, startMcpFloor, startQueuedFloor } from './lib/stack.mjs';
import { percentile } from './lib/stats.mjs';

/**
 * @typedef {import('./lib/stack.mjs').Stack} Stack
 * @typedef {import('./lib/cpu.mjs').CpuPerCall} CpuPerCall
 * @typedef {import('./run.mjs').Cfg} Cfg
 * @typedef {import('@modelcontextprotocol/client').Client} McpClient
 */

/**
 * What a row runs against: the bench's settings, the processes run.mjs starts once, and the Toolgate stack of the row
 * with its fixtures (`fx` on the main stack, `fairFx` on the fairness stack).
 * @typedef {object} RowContext
 * @property {Cfg} cfg
 * @property {Awaited<ReturnType<typeof import('./lib/stack.mjs').startRedis>>} redis
 * @property {Awaited<ReturnType<typeof import('./lib/stack.mjs').startHandler>>} handler
 * @property {Client} handlerClient
 * @property {Awaited<ReturnType<typeof import('./lib/stack.mjs').startEverything>>} everything
 * @property {Awaited<ReturnType<typeof import('./lib/stack.mjs').startFloorWorker>>} floor
 * @property {Stack} stack
 * @property {Awaited<ReturnType<typeof mainFixtures>>} [fx]
 * @property {Awaited<ReturnType<typeof fairnessFixtures>>} [fairFx]
 */

/**
 * One run of a row: its figures (numbers, CPU per call, the retry offsets), its notes, and whether it left work in
 * flight (then its stack is restarted before the next run).
 * @typedef {{ metrics: Metrics, notes?: string[], dirty?: boolean }} RowRun
 * @typedef {{ [name: string]: number | number[] | CpuPerCall | null | undefined }} Metrics
 */

/**
 * What bench/handler.mjs's `GET /_stats` answers.
 * @typedef {object} HandlerStats
 * @property {Record<string, number>} counts requests per path
 * @property {Record<string, number>} bytes bytes received per path
 * @property {number} hanging requests held by /hang
 * @property {Record<string, number[]>} [events] receive times per event id on the path asked about
 */

/** @typedef {{ [status in 'queued' | 'in_progress' | 'succeeded' | 'failed' | 'cancelled']?: number }} CallCounts */

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();
const JSON_HEADERS = { 'content-type': 'application/json' };
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * The main stack's fixtures: rows 1, 2, 5 and 6 run there.
 * @param {RowContext} ctx
 */
function mainFx(ctx) {
  if (!ctx.fx) throw new Error('this row runs on the main stack, with its fixtures');
  return ctx.fx;
}

/**
 * The fairness stack's fixtures: row 8 runs there.
 * @param {RowContext} ctx
 */
function fairFx(ctx) {
  if (!ctx.fairFx) throw new Error('this row runs on the fairness stack, with its fixtures');
  return ctx.fairFx;
}

/**
 * The pids whose CPU time is attributed per call.
 * @param {RowContext} ctx
 */
function pidsOf(ctx) {
  return {
    api: ctx.stack?.api.pid,
    worker: ctx.stack?.worker.pid,
    redis: ctx.redis.proc.pid,
    handler: ctx.handler.proc.pid,
    floor_worker: ctx.floor.pid,
    bench_client: process.pid,
  };
}

/**
 * `n` requests one after another on one keep-alive connection: latencies in ms and errors.
 * @param {import('undici').Dispatcher} dispatcher
 * @param {import('undici').Dispatcher.RequestOptions} request
 * @param {number} n
 * @param {(status: number, text: string) => boolean} check
 * @param {AbortSignal} signal
 */
async function sequential(dispatcher, request, n, check, signal) {
  const latencies = new Float64Array(n);
  let errors = 0;
  for (let i = 0; i < n; i++) {
    signal.throwIfAborted();
    const t0 = now();
    const response = await dispatcher.request(request);
    const text = await response.body.text();
    latencies[i] = now() - t0;
    if (!check(response.statusCode, text)) errors += 1;
  }
  return { latencies, errors };
}

/**
 * `n` requests with `clients` in flight: calls/s, latency percentiles under load, errors.
 * @param {import('undici').Dispatcher} dispatcher
 * @param {import('undici').Dispatcher.RequestOptions} request
 * @param {number} n
 * @param {number} clients
 * @param {(status: number, text: string) => boolean} check
 * @param {AbortSignal} signal
 */
async function saturate(dispatcher, request, n, clients, check, signal) {
  const latencies = new Float64Array(n);
  let errors = 0;
  let firstError;
  const t0 = now();
  await inParallel(
    n,
    clients,
    async (i) => {
      const start = now();
      const response = await dispatcher.request(request);
      const text = await response.body.text();
      latencies[i] = now() - start;
      if (!check(response.statusCode, text)) {
        errors += 1;
        firstError ??= `${response.statusCode} ${text.slice(0, 200)}`;
      }
    },
    signal,
  );
  const elapsed = now() - t0;
  return {
    rate: (n * 1000) / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    firstError,
  };
}

/** @typedef {(status: number, text: string) => boolean} AnswerCheck */
/** @type {AnswerCheck} */
const okFloor = (status) => status === 200;
/** @type {AnswerCheck} */
const okInstant = (status, text) => status === 200 && text.includes('"status":"succeeded"');
/** @type {AnswerCheck} */
const okAccepted = (status) => status === 202;

/**
 * @param {{ agentId: string, token: string }} agent
 * @param {string} tool
 */
function toolCallRequest(agent, tool, dialog = 'bench') {
  return {
    method: 'POST',
    path: `/v1/agents/${agent.agentId}/tool-calls`,
    headers: { ...JSON_HEADERS, authorization: `Bearer ${agent.token}` },
    body: JSON.stringify({ tool, dialog_id: dialog, arguments: CALL_ARGUMENTS }),
  };
}

const floorRequest = (path = '/ok') => ({
  method: 'POST',
  path,
  headers: { ...JSON_HEADERS, 'x-webhook-event-id': 'floor' },
  body: WEBHOOK_BODY,
});

/**
 * @param {RowContext} ctx
 * @param {string} [path] the path whose receive times come with the counts
 * @returns {Promise<HandlerStats>}
 */
async function handlerStats(ctx, path) {
  const response = await ctx.handlerClient.request({
    method: 'GET',
    path: `/_stats${path ? `?path=${encodeURIComponent(path)}` : ''}`,
  });
  return JSON.parse(await response.body.text());
}

/**
 * @param {RowContext} ctx
 */
async function resetHandler(ctx) {
  const response = await ctx.handlerClient.request({ method: 'POST', path: '/_reset' });
  await response.body.dump();
}

/**
 * @param {RowContext} ctx
 * @param {string} appId
 * @returns {Promise<CallCounts>}
 */
async function countCalls(ctx, appId) {
  const { rows } = await ctx.stack.db.query(
    `SELECT status, count(*)::int AS n FROM tool_calls WHERE app_id = $1 GROUP BY status`,
    [appId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * Polls until `predicate()` is true (every `everyMs`): true, or false once `deadline` (epoch ms) has passed.
 * @param {() => Promise<boolean> | boolean} predicate
 * @param {number} everyMs
 * @param {AbortSignal} signal
 */
async function until(predicate, everyMs, signal, deadline = Infinity) {
  for (;;) {
    signal.throwIfAborted();
    if (await predicate()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/**
 * How many queued calls' first attempts the API made itself so far (its toolgate_queued_call_first_attempts_total).
 * @param {Stack} stack
 */
async function firstAttemptsByApi(stack) {
  const text = await (await fetch(`${stack.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('toolgate_queued_call_first_attempts_total{by="api"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}

/**
 * Waits until `expected` calls of the app have finished: the handler's count is cheap to poll, Postgres is polled
 * only for the last stretch. Returns {complete, counts, finished}; incomplete once `deadline` (epoch ms) passed.
 * @param {RowContext} ctx
 * @param {string} path
 * @param {string} appId
 * @param {number} expected
 * @param {AbortSignal} signal
 * @param {number} deadline
 */
async function untilCallsFinished(ctx, path, appId, expected, signal, deadline) {
  /** @type {CallCounts} */
  let counts = {};
  const finished = () => (counts.succeeded ?? 0) + (counts.failed ?? 0) + (counts.cancelled ?? 0);
  let complete = await until(
    async () => ((await handlerStats(ctx)).counts[path] ?? 0) >= expected,
    100,
    signal,
    deadline,
  );
  if (complete) {
    complete = await until(
      async () => {
        counts = await countCalls(ctx, appId);
        return finished() >= expected;
      },
      20,
      signal,
      deadline,
    );
  }
  if (!complete) counts = await countCalls(ctx, appId);
  return { complete, counts, finished: finished() };
}

// ---------------------------------------------------------------------------------------------
// Fixtures of the main stack

/**
 * @param {Pick<RowContext, 'stack' | 'handler' | 'everything'>} ctx
 */
export async function mainFixtures(ctx) {
  const { stack, handler } = ctx;
  const instant = await constructorApp(stack, 'instant', [httpTool('ping', `${handler.url}/ok/instant`, 'instant')]);
  const instantAgent = await agentWith(stack, instant.app, ['ping']);
  const mcp = await mcpApp(stack, 'mcp', ctx.everything.url);
  const mcpAgent = await agentWith(stack, mcp.app, ['echo']);
  const names = Array.from({ length: 100 }, (_, i) => `tool_${String(i).padStart(3, '0')}`);
  const many = await constructorApp(
    stack,
    'many',
    names.map((name) => httpTool(name, `${handler.url}/ok/many`, 'instant')),
  );
  const manyAgent = await agentWith(stack, many.app, names);
  // Row 2l: the same tool of an app with delivery limits, called by an agent of a project with quotas, all set so
  // high that none is reached (the cost of checking them).
  const limited = await constructorApp(stack, 'limited', [httpTool('ping', `${handler.url}/ok/limited`, 'instant')]);
  await stack.client.call('PATCH', `/v1/apps/${limited.app.id}`, {
    token: limited.dev,
    body: { delivery_limits: { max_in_flight: 1000, max_per_second: 10_000 } },
    expect: 200,
  });
  const limitedAgent = await agentWith(stack, limited.app, ['ping']);
  await stack.client.call('PUT', `/v1/projects/${limitedAgent.projectId}/limits`, {
    token: await projectToken(limitedAgent.projectId),
    body: { agent_calls_per_minute: 100_000_000, project_calls_per_minute: 100_000_000 },
    expect: 200,
  });
  return {
    instant: { ...instantAgent, tool: `${instant.prefix}ping` },
    limited: { ...limitedAgent, tool: `${limited.prefix}ping` },
    mcp: { ...mcpAgent, tool: `${mcp.prefix}echo` },
    many: { ...manyAgent, count: names.length },
  };
}

// ---------------------------------------------------------------------------------------------
// 1. instant call latency, 1 client

/**
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @returns {Promise<RowRun>}
 */
export async function instantLatency(ctx, run, signal) {
  const { cfg } = ctx;
  const fx = mainFx(ctx);
  const floorClient = new Client(ctx.handler.url, { keepAliveTimeout: 30_000 });
  const tgClient = new Client(ctx.stack.baseUrl, { keepAliveTimeout: 30_000 });
  let workFloor;
  let workClient;
  try {
    const floorReq = floorRequest();
    const tgReq = toolCallRequest(fx.instant, fx.instant.tool, 'latency');
    // Each side warmed up alike, with enough calls for a fresh process's JIT to settle.
    const warmup = Math.max(cfg.warmup, LATENCY_WARMUP);
    await sequential(floorClient, floorReq, warmup, okFloor, signal);
    let cpu = cpuProbe(pidsOf(ctx));
    const floor = await sequential(floorClient, floorReq, cfg.latencyN, okFloor, signal);
    const floorCpu = cpu.stop(cfg.latencyN);
    await sequential(tgClient, tgReq, warmup, okInstant, signal);
    cpu = cpuProbe(pidsOf(ctx));
    const tg = await sequential(tgClient, tgReq, cfg.latencyN, okInstant, signal);
    const tgCpu = cpu.stop(cfg.latencyN);
    // The same calls, one at a time, to the floor of their own work (no framework) in the API's place, on the same
    // schema.
    workFloor = await startInstantFloor(ctx.stack, `${ctx.handler.url}/ok/instant`, fx.instant.tool);
    workClient = new Client(workFloor.url, { keepAliveTimeout: 30_000 });
    await sequential(workClient, tgReq, warmup, okInstant, signal);
    const work = await sequential(workClient, tgReq, cfg.latencyN, okInstant, signal);
    const notes = [];
    if (floor.errors) notes.push(`floor: ${floor.errors} non-200 answers`);
    if (tg.errors) notes.push(`Toolgate: ${tg.errors} calls not 200 succeeded`);
    if (work.errors) notes.push(`floor of the work: ${work.errors} calls not 200 succeeded`);
    const m = {
      floor_p50: percentile(floor.latencies, 50),
      floor_p99: percentile(floor.latencies, 99),
      tg_p50: percentile(tg.latencies, 50),
      tg_p99: percentile(tg.latencies, 99),
      work_p50: percentile(work.latencies, 50),
      work_p99: percentile(work.latencies, 99),
    };
    return {
      metrics: {
        ...m,
        added_p50: m.tg_p50 - m.floor_p50,
        added_p99: m.tg_p99 - m.floor_p99,
        // What the work itself adds over the bare POST, and what Toolgate adds over that.
        work_added_p50: m.work_p50 - m.floor_p50,
        over_work_p50: m.tg_p50 - m.work_p50,
        cpu_floor: floorCpu,
        cpu_tg: tgCpu,
      },
      notes,
    };
  } finally {
    await Promise.all([floorClient.close(), tgClient.close(), workClient?.close()]);
    await workFloor?.proc.stop();
  }
}

/**
 * Calls each side of row 1 gets before it is measured (about 3 s here; BENCH_WARMUP when larger), and row 3's fresh
 * floor of the work too: a fresh API spends 3.3 ms of CPU per instant call over its first 500 calls and 1.3 ms after
 * 2,500 (V8's JIT), and a fresh floor-of-the-work process warms up likewise. With 200, row 1's first run measured
 * the JIT.
 */
export const LATENCY_WARMUP = 2000;

// ---------------------------------------------------------------------------------------------
// 2. instant call throughput, 50 clients

/**
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @returns {Promise<RowRun>}
 */
export async function instantThroughput(ctx, run, signal) {
  const { cfg } = ctx;
  const fx = mainFx(ctx);
  const floorPool = new Pool(ctx.handler.url, { connections: cfg.clients, keepAliveTimeout: 30_000 });
  const tgPool = new Pool(ctx.stack.baseUrl, { connections: cfg.clients, keepAliveTimeout: 30_000 });
  const warm = Math.min(500, Math.ceil(cfg.throughputN / 4));
  let workFloor;
  let workPool;
  try {
    const floorReq = floorRequest();
    const tgReq = toolCallRequest(fx.instant, fx.instant.tool, 'throughput');
    await saturate(floorPool, floorReq, warm, cfg.clients, okFloor, signal);
    let cpu = cpuProbe(pidsOf(ctx));
    const floor = await saturate(floorPool, floorReq, cfg.throughputN, cfg.clients, okFloor, signal);
    const floorCpu = cpu.stop(cfg.throughputN);
    await saturate(tgPool, tgReq, warm, cfg.clients, okInstant, signal);
    cpu = cpuProbe(pidsOf(ctx));
    const tg = await saturate(tgPool, tgReq, cfg.throughputN, cfg.clients, okInstant, signal);
    const tgCpu = cpu.stop(cfg.throughputN);
    // The same calls to the floor of their own work (no framework), in the API's place, on the same schema.
    workFloor = await startInstantFloor(ctx.stack, `${ctx.handler.url}/ok/instant`, fx.instant.tool);
    workPool = new Pool(workFloor.url, { connections: cfg.clients, keepAliveTimeout: 30_000 });
    await saturate(workPool, tgReq, warm * 2, cfg.clients, okInstant, signal);
    cpu = cpuProbe({ api: workFloor.pid });
    const work = await saturate(workPool, tgReq, cfg.throughputN, cfg.clients, okInstant, signal);
    const workCpu = cpu.stop(cfg.throughputN);
    const notes = [];
    if (floor.errors) notes.push(`floor: ${floor.errors} errors (${floor.firstError})`);
    if (tg.errors) notes.push(`Toolgate: ${tg.errors} calls not 200 succeeded (first: ${tg.firstError})`);
    if (work.errors) notes.push(`floor of the work: ${work.errors} errors (${work.firstError})`);
    return {
      metrics: {
        floor_rate: floor.rate,
        tg_rate: tg.rate,
        ratio: tg.rate / floor.rate,
        floor_p99: floor.p99,
        tg_p50: tg.p50,
        tg_p99: tg.p99,
        work_floor_rate: work.rate,
        work_ratio: tg.rate / work.rate,
        cpu_floor: floorCpu,
        cpu_tg: tgCpu,
        // CPU per call while the floor of the work served: its process (in the API's place, `api`) and Postgres.
        cpu_work_floor: workCpu,
      },
      notes,
    };
  } finally {
    await Promise.all([floorPool.close(), tgPool.close(), workPool?.close()]);
    await workFloor?.proc.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 2l. instant call throughput with limits set (never reached) and with none, on one stack

/**
 * Row 2's load, alternating between the agent whose app and project set no limits and the one whose app sets
 * delivery limits and whose project sets quotas (each far above the load): what checking them costs per call.
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @returns {Promise<RowRun>}
 */
export async function instantThroughputLimited(ctx, run, signal) {
  const { cfg } = ctx;
  const fx = mainFx(ctx);
  const pool = new Pool(ctx.stack.baseUrl, { connections: cfg.clients, keepAliveTimeout: 30_000 });
  const warm = Math.min(500, Math.ceil(cfg.throughputN / 4));
  try {
    const plainReq = toolCallRequest(fx.instant, fx.instant.tool, 'limits-none');
    const limitedReq = toolCallRequest(fx.limited, fx.limited.tool, 'limits-set');
    await saturate(pool, plainReq, warm, cfg.clients, okInstant, signal);
    await saturate(pool, limitedReq, warm, cfg.clients, okInstant, signal);
    let cpu = cpuProbe(pidsOf(ctx));
    const none = await saturate(pool, plainReq, cfg.throughputN, cfg.clients, okInstant, signal);
    const noneCpu = cpu.stop(cfg.throughputN);
    cpu = cpuProbe(pidsOf(ctx));
    const set = await saturate(pool, limitedReq, cfg.throughputN, cfg.clients, okInstant, signal);
    const setCpu = cpu.stop(cfg.throughputN);
    const notes = [];
    if (none.errors) notes.push(`no limits: ${none.errors} calls not 200 succeeded (first: ${none.firstError})`);
    if (set.errors) notes.push(`limits set: ${set.errors} calls not 200 succeeded (first: ${set.firstError})`);
    return {
      metrics: {
        none_rate: none.rate,
        set_rate: set.rate,
        ratio: set.rate / none.rate,
        none_p99: none.p99,
        set_p99: set.p99,
        cpu_none: noneCpu,
        cpu_set: setCpu,
      },
      notes,
    };
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------------------------------------
// 3. queued throughput (background) and 7. memory during it

/**
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @param {{ workFloor?: boolean }} [options]
 * @returns {Promise<RowRun>}
 */
export async function queuedThroughput(ctx, run, signal, { workFloor = false } = {}) {
  const { cfg, stack } = ctx;
  const n = cfg.queuedN;
  const notes = [];

  // Floor: addBulk of n jobs to a bare BullMQ queue; the floor worker process POSTs each to the handler.
  const connection = new Redis(ctx.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue('floor', { connection, prefix: 'benchfloor' });
  let floor;
  try {
    const jobs = Array.from({ length: n }, (_, i) => ({
      name: 'deliver',
      data: { id: `f${run}-${i}` },
      opts: { removeOnComplete: true, removeOnFail: true },
    }));
    const { done } = await ctx.floor.arm(n, signal);
    const rss = sampleRss({ floor_worker: ctx.floor.pid });
    const cpu = cpuProbe(pidsOf(ctx));
    const t0 = now();
    await queue.addBulk(jobs);
    const enqueuedMs = now() - t0;
    const result = await done;
    const elapsed = now() - t0;
    floor = { rate: (n * 1000) / elapsed, cpu: cpu.stop(n), rss: rss.stop().floor_worker, enqueuedMs };
    if (result.failed) notes.push(`floor: ${result.failed} jobs did not get a 200`);
  } finally {
    await queue.close().catch(() => undefined);
    connection.disconnect();
  }

  // Toolgate: n POST tool-calls of a background tool (50 clients) until every call is succeeded in Postgres.
  // The API makes the first attempts it has slots for (API_DELIVERY_CONCURRENCY), the worker the queued ones.
  const path = `/ok/queued-${run}-${randomUUID().slice(0, 8)}`;
  const app = await constructorApp(stack, 'queued', [httpTool('deliver', `${ctx.handler.url}${path}`, 'background')]);
  const agent = await agentWith(stack, app.app, ['deliver']);
  const pool = new Pool(stack.baseUrl, { connections: cfg.clients, keepAliveTimeout: 30_000 });
  try {
    const request = toolCallRequest(agent, `${app.prefix}deliver`, `queued-${run}`);
    const byApiBefore = await firstAttemptsByApi(stack);
    const rss = sampleRss({ api: stack.api.pid, worker: stack.worker.pid });
    const cpu = cpuProbe(pidsOf(ctx));
    const t0 = now();
    const accepted = await saturate(pool, request, n, cfg.clients, okAccepted, signal);
    const acceptedMs = now() - t0;
    const expected = n - accepted.errors;
    if (accepted.errors) notes.push(`Toolgate: ${accepted.errors} POSTs not 202 (first: ${accepted.firstError})`);
    // A run that cannot finish within its budget reports the rate it reached (and its stack is restarted).
    const deadline = Date.now() + ctx.cfg.queuedBudgetS * 1000 - acceptedMs;
    const {
      complete,
      counts,
      finished: done,
    } = await untilCallsFinished(ctx, path, app.app.id, expected, signal, deadline);
    const elapsed = now() - t0;
    const tgCpu = cpu.stop(Math.max(1, done));
    const max = rss.stop();
    if (!complete)
      notes.push(
        `Toolgate: only ${done} of ${expected} calls finished within the ${ctx.cfg.queuedBudgetS} s budget: the rate is over that time`,
      );
    if (counts.failed || counts.cancelled)
      notes.push(`Toolgate: ${counts.failed ?? 0} failed, ${counts.cancelled ?? 0} cancelled calls`);
    const byApi = (await firstAttemptsByApi(stack)) - byApiBefore;
    notes.push(`Toolgate: the API made ${byApi} of the ${expected} first attempts, the worker the rest`);
    const delivered = (await handlerStats(ctx)).counts[path] ?? 0;
    if (complete && delivered > expected)
      notes.push(`Toolgate: the handler got ${delivered} requests for ${expected} calls (duplicates)`);
    const tgRate = ((counts.succeeded ?? 0) * 1000) / elapsed;
    // The floor of the work runs after Toolgate; should it fail, Toolgate's figures of this run still count.
    const work =
      workFloor && complete
        ? await queuedWorkFloor(ctx, run, request, signal, notes).catch((error) => {
            notes.push(`floor of the work failed: ${error.message.split('\n')[0]}`);
            return null;
          })
        : null;
    return {
      dirty: !complete,
      metrics: {
        floor_rate: floor.rate,
        tg_rate: tgRate,
        ratio: tgRate / floor.rate,
        ...(work && { work_floor_rate: work.rate, work_ratio: tgRate / work.rate, cpu_work_floor: work.cpu }),
        tg_accept_rate: (n * 1000) / acceptedMs,
        floor_enqueue_rate: (n * 1000) / floor.enqueuedMs,
        cpu_floor: floor.cpu,
        cpu_tg: tgCpu,
        rss_api_max: max.api,
        rss_worker_max: max.worker,
        rss_api_end: rssMiB(stack.api.pid),
        rss_worker_end: rssMiB(stack.worker.pid),
        rss_floor_worker_max: floor.rss,
      },
      notes,
    };
  } finally {
    await pool.close();
  }
}

/**
 * Row 3's calls (`request`) sent to the floor of their own work instead (bench/queued-floor-accept.mjs and
 * bench/queued-floor-deliver.mjs: no framework, in the API's and the worker's places, on the same schema, handler and
 * Redis), after a warm-up: their rate end to end and the CPU per call, the floor's accepting and delivering processes
 * counted as `api` and `worker`.
 * @param {RowContext} ctx
 * @param {number} run
 * @param {ReturnType<typeof toolCallRequest>} request
 * @param {AbortSignal} signal
 * @param {string[]} notes
 */
async function queuedWorkFloor(ctx, run, request, signal, notes) {
  const { cfg, stack } = ctx;
  const path = `/ok/queued-work-floor-${run}-${randomUUID().slice(0, 8)}`;
  // An app of its own, so that the floor's calls are counted apart (its rows need an app for their foreign key).
  const { app } = await constructorApp(stack, 'queuedfloor', [
    httpTool('t', `${ctx.handler.url}${path}`, 'background'),
  ]);
  const tool = JSON.parse(request.body).tool;
  const floor = await startQueuedFloor(stack, {
    appId: app.id,
    handlerUrl: `${ctx.handler.url}${path}`,
    tool,
    redisUrl: ctx.redis.url,
  });
  const pool = new Pool(floor.url, { connections: cfg.clients, keepAliveTimeout: 30_000 });
  try {
    const sendAndFinish = async (/** @type {number} */ n, /** @type {number} */ expectedBefore) => {
      const accepted = await saturate(pool, request, n, cfg.clients, okAccepted, signal);
      if (accepted.errors)
        throw new Error(`floor of the work: ${accepted.errors} POSTs not 202 (${accepted.firstError})`);
      const deadline = Date.now() + cfg.queuedBudgetS * 1000;
      const done = await untilCallsFinished(ctx, path, app.id, expectedBefore + n, signal, deadline);
      if (!done.complete)
        throw new Error(
          `floor of the work: ${done.finished} of ${expectedBefore + n} calls finished:\n${floor.output().slice(-2000)}`,
        );
      return done;
    };
    const warm = Math.min(LATENCY_WARMUP, cfg.queuedN);
    await sendAndFinish(warm, 0);
    const cpu = cpuProbe({ ...pidsOf(ctx), api: floor.acceptPid, worker: floor.deliverPid });
    const t0 = now();
    const done = await sendAndFinish(cfg.queuedN, warm);
    const elapsed = now() - t0;
    const succeeded = (done.counts.succeeded ?? 0) - warm;
    if (succeeded < cfg.queuedN) notes.push(`floor of the work: ${cfg.queuedN - succeeded} calls did not succeed`);
    return { rate: (succeeded * 1000) / elapsed, cpu: cpu.stop(cfg.queuedN) };
  } finally {
    await pool.close();
    await floor.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 3c. a backlog: n calls accepted while delivery is paused, then resumed. A worker restarted under load, or Redis
// back after an outage, meets the same: how soon the first call goes out, and how fast the backlog drains.

/**
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @returns {Promise<RowRun>}
 */
export async function queuedBacklog(ctx, run, signal) {
  const { cfg, stack } = ctx;
  const n = cfg.queuedN;
  const notes = [];
  const connection = new Redis(ctx.redis.url, { maxRetriesPerRequest: null });
  const floorQueue = new Queue('floor', { connection, prefix: 'benchfloor' });
  const queue = new Queue(stack.queue.name, { connection, prefix: stack.queue.prefix });
  const pool = new Pool(stack.baseUrl, { connections: cfg.clients, keepAliveTimeout: 30_000 });
  const delivered = async (/** @type {string} */ path) => (await handlerStats(ctx)).counts[path] ?? 0;
  try {
    // Floor: n jobs added to the paused floor queue; the floor worker runs them once it is resumed.
    await floorQueue.pause();
    const { done } = await ctx.floor.arm(n, signal);
    await floorQueue.addBulk(
      Array.from({ length: n }, (_, i) => ({
        name: 'deliver',
        data: { id: `b${run}-${i}` },
        opts: { removeOnComplete: true, removeOnFail: true },
      })),
    );
    const floorBefore = await delivered('/ok');
    let cpu = cpuProbe(pidsOf(ctx));
    let t0 = now();
    await floorQueue.resume();
    await until(async () => (await delivered('/ok')) > floorBefore, 5, signal);
    const floorFirst = now() - t0;
    const result = await done;
    const floor = { first: floorFirst, rate: (n * 1000) / (now() - t0), cpu: cpu.stop(n) };
    if (result.failed) notes.push(`floor: ${result.failed} jobs did not get a 200`);

    // Toolgate: n POST tool-calls of a background tool accepted while its delivery queue is paused.
    const path = `/ok/backlog-${run}-${randomUUID().slice(0, 8)}`;
    const app = await constructorApp(stack, 'backlog', [
      httpTool('deliver', `${ctx.handler.url}${path}`, 'background'),
    ]);
    const agent = await agentWith(stack, app.app, ['deliver']);
    await queue.pause();
    const accepted = await saturate(
      pool,
      toolCallRequest(agent, `${app.prefix}deliver`, `backlog-${run}`),
      n,
      cfg.clients,
      okAccepted,
      signal,
    );
    if (accepted.errors) notes.push(`Toolgate: ${accepted.errors} POSTs not 202 (first: ${accepted.firstError})`);
    const expected = n - accepted.errors;
    cpu = cpuProbe(pidsOf(ctx));
    t0 = now();
    await queue.resume();
    await until(async () => (await delivered(path)) > 0, 5, signal);
    const first = now() - t0;
    const deadline = Date.now() + ctx.cfg.queuedBudgetS * 1000;
    const { complete, counts, finished } = await untilCallsFinished(ctx, path, app.app.id, expected, signal, deadline);
    const elapsed = now() - t0;
    if (!complete)
      notes.push(`Toolgate: only ${finished} of ${expected} calls finished within the ${cfg.queuedBudgetS} s budget`);
    const rate = ((counts.succeeded ?? 0) * 1000) / elapsed;
    return {
      dirty: !complete,
      metrics: {
        floor_first: floor.first,
        tg_first: first,
        floor_rate: floor.rate,
        tg_rate: rate,
        ratio: rate / floor.rate,
        cpu_floor: floor.cpu,
        cpu_tg: cpu.stop(Math.max(1, finished)),
      },
      notes,
    };
  } finally {
    await Promise.all([floorQueue.resume(), queue.resume()]).catch(() => undefined);
    await Promise.all([floorQueue.close(), queue.close(), pool.close()]).catch(() => undefined);
    connection.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// 4. schedule accuracy (needs a stack with RETRY_TIME_SCALE=0.01)

/**
 * @param {Record<string, number[]>} events receive times per event id
 * @param {number[]} offsets
 */
function lateness(events, offsets) {
  /** @type {number[][]} */
  const late = offsets.map(() => []);
  let incomplete = 0;
  for (const times of Object.values(events)) {
    if (times.length < offsets.length) {
      incomplete += 1;
      continue;
    }
    for (let k = 1; k < offsets.length; k++) late[k].push(times[k] - times[0] - offsets[k]);
  }
  return { late, incomplete };
}

/**
 * @param {string} prefix
 * @param {ReturnType<typeof lateness>} lateness
 */
function summarizeLateness(prefix, { late }) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const k of [1, 2]) {
    out[`${prefix}_a${k + 1}_p50`] = percentile(late[k], 50);
    out[`${prefix}_a${k + 1}_p99`] = percentile(late[k], 99);
    out[`${prefix}_a${k + 1}_max`] = late[k].length ? Math.max(...late[k]) : NaN;
    out[`${prefix}_a${k + 1}_min`] = late[k].length ? Math.min(...late[k]) : NaN;
  }
  return out;
}

/**
 * Row 4c: the same calls sent at BENCH_SCHEDULE_RATE calls/s, a load the worker carries with capacity to spare.
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @returns {Promise<RowRun>}
 */
export function schedulePaced(ctx, run, signal) {
  return scheduleAccuracy(ctx, run, signal, { rate: ctx.cfg.scheduleRate });
}

/**
 * Rows 4, 4b and 4c: `n` wait calls whose first two attempts fail, sent as fast as 50 clients can (a burst beyond
 * what the worker delivers in the retries' offsets) or, with `rate`, paced at `rate` calls/s.
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @param {{ rate?: number }} [options]
 * @returns {Promise<RowRun>}
 */
export async function scheduleAccuracy(ctx, run, signal, { rate } = {}) {
  const { cfg, stack } = ctx;
  const n = cfg.scheduleN;
  const send = (/** @type {(i: number) => Promise<unknown>} */ fn) =>
    rate ? paced(n, rate, fn, signal) : inParallel(n, cfg.clients, fn, signal);
  const scale = Number(stack.env.RETRY_TIME_SCALE);
  const offsets = [0, 15_000, 60_000].map((ms) => ms * scale);
  const notes = [];
  await resetHandler(ctx);

  // Floor: the same three-attempt schedule with bare BullMQ delayed jobs (floor-worker.mjs).
  const floorPath = `/fail-twice-floor/r${run}-${randomUUID().slice(0, 8)}`;
  const connection = new Redis(ctx.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue('floor', { connection, prefix: 'benchfloor' });
  try {
    const { done } = await ctx.floor.arm(n, signal);
    await send(() =>
      queue.add(
        'schedule',
        { id: randomUUID(), n: 1, path: floorPath },
        { removeOnComplete: true, removeOnFail: true },
      ),
    );
    const result = await done;
    if (result.failed) notes.push(`floor: ${result.failed} chains did not end in a 200`);
  } finally {
    await queue.close().catch(() => undefined);
    connection.disconnect();
  }
  const floorStats = lateness((await handlerStats(ctx, floorPath)).events ?? {}, offsets);

  // Toolgate: n wait calls to /fail-twice, 50 clients.
  const path = `/fail-twice/r${run}-${randomUUID().slice(0, 8)}`;
  // CPU per attempt while Toolgate's calls are sent and delivered: whether the worker had capacity to spare.
  let cpu;
  let workerCorePct;
  const app = await constructorApp(stack, 'sched', [httpTool('flaky', `${ctx.handler.url}${path}`, 'wait')]);
  const agent = await agentWith(stack, app.app, ['flaky']);
  const pool = new Pool(stack.baseUrl, { connections: cfg.clients, keepAliveTimeout: 30_000 });
  try {
    const request = toolCallRequest(agent, `${app.prefix}flaky`, `sched-${run}`);
    /** @type {{ errors: number, firstError?: string }} */
    const accepted = { errors: 0 };
    const probe = cpuProbe(pidsOf(ctx));
    await send(async () => {
      const response = await pool.request(request);
      const text = await response.body.text();
      if (okAccepted(response.statusCode, text)) return;
      accepted.errors += 1;
      accepted.firstError ??= `${response.statusCode} ${text.slice(0, 200)}`;
    });
    const expected = n - accepted.errors;
    if (accepted.errors) notes.push(`Toolgate: ${accepted.errors} POSTs not 202 (first: ${accepted.firstError})`);
    /** @type {CallCounts} */
    let counts = {};
    await until(
      async () => {
        counts = await countCalls(ctx, app.app.id);
        return (counts.succeeded ?? 0) + (counts.failed ?? 0) + (counts.cancelled ?? 0) >= expected;
      },
      200,
      signal,
    );
    if (counts.failed || counts.cancelled)
      notes.push(`Toolgate: ${counts.failed ?? 0} failed, ${counts.cancelled ?? 0} cancelled calls`);
    const attempts = Math.max(1, (await handlerStats(ctx)).counts[path] ?? 0);
    cpu = probe.stop(attempts);
    workerCorePct = (100 * cpu.worker * attempts) / cpu.wall_ms;
  } finally {
    await pool.close();
  }
  const tgStats = lateness((await handlerStats(ctx, path)).events ?? {}, offsets);
  if (tgStats.incomplete) notes.push(`Toolgate: ${tgStats.incomplete} calls seen fewer than 3 times by the handler`);
  if (floorStats.incomplete)
    notes.push(`floor: ${floorStats.incomplete} chains seen fewer than 3 times by the handler`);
  // Offsets run from when attempt 1 is sent; the handler sees it a little later, so a ms or two early is measurement.
  const early = tgStats.late.flat().filter((v) => v < -5).length;
  if (early)
    notes.push(
      `Toolgate: ${early} attempts arrived more than 5 ms before their offset (min ${Math.min(...tgStats.late.flat()).toFixed(1)} ms)`,
    );
  return {
    metrics: {
      ...summarizeLateness('floor', floorStats),
      ...summarizeLateness('tg', tgStats),
      offsets,
      ...(cpu ? { cpu_tg: cpu, tg_worker_core_pct: workerCorePct } : {}),
    },
    notes,
  };
}

// ---------------------------------------------------------------------------------------------
// 5. MCP proxy

/**
 * @param {McpClient} client
 * @param {string} name
 * @param {number} warmup
 * @param {number} n
 * @param {AbortSignal} signal
 */
async function mcpCalls(client, name, warmup, n, signal) {
  const latencies = new Float64Array(n);
  let errors = 0;
  let firstError;
  const message = 'hello from the benchmark';
  for (let i = -warmup; i < n; i++) {
    signal.throwIfAborted();
    const t0 = now();
    const result = await client.callTool({ name, arguments: { message } });
    if (i >= 0) latencies[i] = now() - t0;
    const first = result.content?.[0];
    if (result.isError || first?.type !== 'text' || first.text !== `Echo: ${message}`) {
      errors += 1;
      firstError ??= JSON.stringify(result).slice(0, 300);
    }
  }
  return { latencies, errors, firstError };
}

/**
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @returns {Promise<RowRun>}
 */
export async function mcpProxy(ctx, run, signal) {
  const { cfg } = ctx;
  const fx = mainFx(ctx);
  const floorClient = await mcpConnect(ctx.everything.url);
  const tgClient = await mcpConnect(`${ctx.stack.baseUrl}/v1/agents/${fx.mcp.agentId}/mcp`, {
    authorization: `Bearer ${fx.mcp.token}`,
  });
  let workFloor;
  let workClient;
  try {
    // Each side warmed up alike, with enough calls for a fresh process's JIT to settle (the floor of the work is one).
    const warm = Math.max(cfg.warmup, LATENCY_WARMUP);
    await mcpCalls(floorClient, 'echo', warm, 0, signal);
    let cpu = cpuProbe(pidsOf(ctx));
    const floor = await mcpCalls(floorClient, 'echo', 0, cfg.mcpN, signal);
    const floorCpu = cpu.stop(cfg.mcpN);
    await mcpCalls(tgClient, fx.mcp.tool, warm, 0, signal);
    cpu = cpuProbe(pidsOf(ctx));
    const tg = await mcpCalls(tgClient, fx.mcp.tool, 0, cfg.mcpN, signal);
    const tgCpu = cpu.stop(cfg.mcpN);
    // The same calls through the floor of a proxy's work (no framework), relaying to the same server, on the same
    // schema.
    workFloor = await startMcpFloor(ctx.stack, ctx.everything.url);
    workClient = await mcpConnect(workFloor.url);
    await mcpCalls(workClient, 'echo', warm, 0, signal);
    const work = await mcpCalls(workClient, 'echo', 0, cfg.mcpN, signal);
    const notes = [];
    if (floor.errors) notes.push(`floor: ${floor.errors} unexpected results (${floor.firstError})`);
    if (tg.errors) notes.push(`Toolgate: ${tg.errors} unexpected results (${tg.firstError})`);
    if (work.errors) notes.push(`floor of the work: ${work.errors} unexpected results (${work.firstError})`);
    const m = {
      floor_p50: percentile(floor.latencies, 50),
      floor_p99: percentile(floor.latencies, 99),
      tg_p50: percentile(tg.latencies, 50),
      tg_p99: percentile(tg.latencies, 99),
      work_p50: percentile(work.latencies, 50),
      work_p99: percentile(work.latencies, 99),
    };
    return {
      metrics: {
        ...m,
        ratio_p50: m.tg_p50 / m.floor_p50,
        ratio_p99: m.tg_p99 / m.floor_p99,
        // The floor of the work against the direct call, and Toolgate against the floor of the work.
        work_ratio_p50: m.work_p50 / m.floor_p50,
        over_work_p50: m.tg_p50 / m.work_p50,
        cpu_floor: floorCpu,
        cpu_tg: tgCpu,
      },
      notes,
    };
  } finally {
    const clients = [floorClient, tgClient, workClient].filter((client) => client !== undefined);
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await workFloor?.proc.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 6. agent tools/list with 100 tools

/**
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @returns {Promise<RowRun>}
 */
export async function toolsList(ctx, run, signal) {
  const { cfg } = ctx;
  const fx = mainFx(ctx);
  const notes = [];
  const tgClient = new Client(ctx.stack.baseUrl, { keepAliveTimeout: 30_000 });
  const floorClient = new Client(ctx.handler.url, { keepAliveTimeout: 30_000 });
  const restReq = {
    method: 'GET',
    path: `/v1/agents/${fx.many.agentId}/tools`,
    headers: { authorization: `Bearer ${fx.many.token}` },
  };
  let restBytes = 0;
  /** @type {AnswerCheck} */
  const okList = (status, text) => {
    if (status !== 200) return false;
    restBytes = Buffer.byteLength(text);
    return JSON.parse(text).data?.length === fx.many.count;
  };
  try {
    // The floor of REST: node:http answering the very same bytes from memory.
    const first = await tgClient.request(restReq);
    const body = await first.body.text();
    const put = await floorClient.request({ method: 'PUT', path: '/_static', body });
    await put.body.dump();
    await sequential(floorClient, { method: 'GET', path: '/_static' }, cfg.warmup, okFloor, signal);
    const floorRest = await sequential(floorClient, { method: 'GET', path: '/_static' }, cfg.listN, okFloor, signal);
    await sequential(tgClient, restReq, cfg.warmup, okList, signal);
    const tgRest = await sequential(tgClient, restReq, cfg.listN, okList, signal);
    if (tgRest.errors) notes.push(`REST: ${tgRest.errors} answers not 200 with ${fx.many.count} tools`);

    // MCP tools/list: Toolgate's agent endpoint (100 tools); floor: server-everything's own list.
    const mcpLatencies = async (/** @type {McpClient} */ client, /** @type {number} */ expectCount) => {
      const latencies = new Float64Array(cfg.listN);
      let errors = 0;
      let count = 0;
      for (let i = -Math.min(30, cfg.warmup); i < cfg.listN; i++) {
        signal.throwIfAborted();
        const t0 = now();
        const { tools } = await client.listTools();
        if (i >= 0) latencies[i] = now() - t0;
        count = tools.length;
        if (expectCount && tools.length !== expectCount) errors += 1;
      }
      return { latencies, errors, count };
    };
    const floorMcpClient = await mcpConnect(ctx.everything.url);
    const tgMcpClient = await mcpConnect(`${ctx.stack.baseUrl}/v1/agents/${fx.many.agentId}/mcp`, {
      authorization: `Bearer ${fx.many.token}`,
    });
    let floorMcp;
    let tgMcp;
    try {
      floorMcp = await mcpLatencies(floorMcpClient, 0);
      tgMcp = await mcpLatencies(tgMcpClient, fx.many.count);
    } finally {
      await Promise.all([floorMcpClient.close().catch(() => undefined), tgMcpClient.close().catch(() => undefined)]);
    }
    if (tgMcp.errors) notes.push(`MCP: ${tgMcp.errors} lists without ${fx.many.count} tools`);
    return {
      metrics: {
        floor_rest_p50: percentile(floorRest.latencies, 50),
        floor_rest_p99: percentile(floorRest.latencies, 99),
        tg_rest_p50: percentile(tgRest.latencies, 50),
        tg_rest_p99: percentile(tgRest.latencies, 99),
        floor_mcp_p50: percentile(floorMcp.latencies, 50),
        floor_mcp_p99: percentile(floorMcp.latencies, 99),
        tg_mcp_p50: percentile(tgMcp.latencies, 50),
        tg_mcp_p99: percentile(tgMcp.latencies, 99),
        rest_bytes: restBytes,
        floor_mcp_tools: floorMcp.count,
      },
      notes,
    };
  } finally {
    await Promise.all([tgClient.close(), floorClient.close()]);
  }
}

// ---------------------------------------------------------------------------------------------
// 8. fairness: app B's background calls alone and while app A's calls hang

/**
 * @param {Pick<RowContext, 'stack' | 'handler'>} ctx
 */
export async function fairnessFixtures(ctx) {
  const { stack, handler } = ctx;
  const a = await constructorApp(stack, 'fair-a', [
    httpTool('slow', `${handler.url}/hang/fair`, 'background', { timeoutS: 10 }),
  ]);
  const b = await constructorApp(stack, 'fair-b', [httpTool('quick', `${handler.url}/ok/fair`, 'background')]);
  const agentA = await agentWith(stack, a.app, ['slow']);
  const agentB = await agentWith(stack, b.app, ['quick']);
  return {
    a: { ...agentA, app: a.app, tool: `${a.prefix}slow` },
    b: { ...agentB, app: b.app, tool: `${b.prefix}quick` },
  };
}

/** @typedef {Awaited<ReturnType<typeof fairnessFixtures>>['a']} FairnessAgent */

/**
 * Posts `count` calls (50 clients) and long-polls each until it finishes: latencies from POST to succeeded.
 * @param {RowContext} ctx
 * @param {FairnessAgent} agent
 * @param {number} count
 * @param {string} dialog
 * @param {AbortSignal} signal
 */
async function callsUntilDone(ctx, agent, count, dialog, signal) {
  const client = ctx.stack.client;
  /** @type {number[]} */
  const latencies = [];
  /** @type {Promise<void>[]} */
  const waiters = [];
  let failures = 0;
  const body = { tool: agent.tool, dialog_id: dialog, arguments: CALL_ARGUMENTS };
  await inParallel(
    count,
    ctx.cfg.clients,
    async () => {
      const t0 = now();
      const { body: call } = await client.call('POST', `/v1/agents/${agent.agentId}/tool-calls`, {
        token: agent.token,
        body,
        expect: 202,
        signal,
      });
      waiters.push(
        (async () => {
          for (;;) {
            const { body: state } = await client.call(
              'GET',
              `/v1/agents/${agent.agentId}/tool-calls/${call.call_id}?wait=30`,
              { token: agent.token, expect: 200, signal, timeoutMs: 45_000 },
            );
            if (TERMINAL.has(state.status)) {
              if (state.status === 'succeeded') latencies.push(now() - t0);
              else failures += 1;
              return;
            }
          }
        })(),
      );
    },
    signal,
  );
  await Promise.all(waiters);
  return { latencies, failures };
}

/**
 * Posts `count` calls without waiting for them: their ids.
 * @param {RowContext} ctx
 * @param {FairnessAgent} agent
 * @param {number} count
 * @param {string} dialog
 * @param {AbortSignal} signal
 */
async function postCalls(ctx, agent, count, dialog, signal) {
  /** @type {string[]} */
  const ids = [];
  const body = { tool: agent.tool, dialog_id: dialog, arguments: CALL_ARGUMENTS };
  await inParallel(
    count,
    ctx.cfg.clients,
    async () => {
      const { body: call } = await ctx.stack.client.call('POST', `/v1/agents/${agent.agentId}/tool-calls`, {
        token: agent.token,
        body,
        expect: 202,
        signal,
      });
      ids.push(call.call_id);
    },
    signal,
  );
  return ids;
}

/**
 * @param {RowContext} ctx
 * @param {number} run
 * @param {AbortSignal} signal
 * @returns {Promise<RowRun>}
 */
export async function fairness(ctx, run, signal) {
  const { cfg } = ctx;
  const fx = fairFx(ctx);
  const notes = [];
  await resetHandler(ctx);
  const alone = await callsUntilDone(ctx, fx.b, cfg.fairB, `fair-alone-${run}`, signal);

  const aIds = await postCalls(ctx, fx.a, cfg.fairA, `fair-load-${run}`, signal);
  // A's calls are in flight once the handler holds as many as the worker lets run: the number of
  // hanging requests stops growing for 1.5 s (or reaches WORKER_CONCURRENCY; at most 15 s).
  const t0 = Date.now();
  let hanging = 0;
  let stableSince = Date.now();
  await until(
    async () => {
      const current = (await handlerStats(ctx)).hanging;
      if (current !== hanging) stableSince = Date.now();
      hanging = current;
      return (
        hanging >= Math.min(50, cfg.fairA) ||
        (hanging > 0 && Date.now() - stableSince >= 1_500) ||
        Date.now() - t0 > 15_000
      );
    },
    100,
    signal,
  );
  const loaded = await callsUntilDone(ctx, fx.b, cfg.fairB, `fair-loaded-${run}`, signal);
  const aCounts = await countCalls(ctx, fx.a.app.id);

  // Clean up: cancel A's calls, then answer the hanging requests so that the worker is free again.
  await inParallel(
    aIds.length,
    cfg.clients,
    (i) =>
      ctx.stack.client.call('POST', `/v1/agents/${fx.a.agentId}/tool-calls/${aIds[i]}/cancel`, {
        token: fx.a.token,
        body: {},
      }),
    signal,
  );
  await resetHandler(ctx);
  const t1 = Date.now();
  await until(
    async () => {
      const counts = await countCalls(ctx, fx.a.app.id);
      return !counts.in_progress || Date.now() - t1 > 20_000;
    },
    200,
    signal,
  );

  if (alone.failures || loaded.failures) notes.push(`B: ${alone.failures + loaded.failures} calls did not succeed`);
  notes.push(
    `A: ${hanging} requests hanging at the handler when B started; A's calls by status when B finished: ${JSON.stringify(aCounts)}`,
  );
  const m = {
    alone_p50: percentile(alone.latencies, 50),
    alone_p99: percentile(alone.latencies, 99),
    loaded_p50: percentile(loaded.latencies, 50),
    loaded_p99: percentile(loaded.latencies, 99),
    hanging,
  };
  return { metrics: { ...m, ratio_p50: m.loaded_p50 / m.alone_p50, ratio_p99: m.loaded_p99 / m.alone_p99 }, notes };
}
