// Starting what the benchmark needs: its own redis-server, the handler, server-everything, and
// Toolgate's API and worker (from dist/) on a fresh Postgres schema. Everything on 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { apiClient } from './http.mjs';
import { VIA_PGBOUNCER, startPgBouncer } from './pgbouncer.mjs';
import { freePort, start, startForked } from './procs.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BENCH = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const PG_BASE = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
export const JWT_SECRET = `bench-${randomBytes(24).toString('hex')}`;
const SECRETS_KEYS = `k1:${randomBytes(32).toString('base64')}`;
/** Toolgate's queue name (libs/queue/src/jobs.ts) and the prefix the benchmark gives it. */
const TOOLGATE_QUEUE = 'tool-call-delivery';
const QUEUE_PREFIX = 'bench';
const PROFILE = process.env.BENCH_PROFILE === '1';

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

export async function startRedis() {
  const port = await freePort();
  const proc = start('redis', 'redis-server', [
    '--port',
    String(port),
    '--hz',
    '100',
    '--save',
    '',
    '--appendonly',
    'no',
    '--bind',
    '127.0.0.1',
  ]);
  await proc.waitFor(/Ready to accept connections/, 15_000);
  const url = `redis://127.0.0.1:${port}`;
  return { proc, url, port };
}

/** @param {string} url */
export async function flushRedis(url) {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  await redis.flushall();
  redis.disconnect();
}

export async function startHandler() {
  const proc = start('handler', process.execPath, [join(BENCH, 'handler.mjs')], { env: { PORT: '0' } });
  const [, port] = await proc.waitFor(/handler listening on (\d+)/, 15_000);
  return { proc, url: `http://127.0.0.1:${port}`, port: Number(port) };
}

export async function startEverything() {
  const port = await freePort();
  const entry = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
  const preload = join(ROOT, 'test/support/loopback-preload.mjs');
  const proc = start('server-everything', process.execPath, ['--import', preload, entry, 'streamableHttp'], {
    env: { PORT: String(port) },
  });
  await proc.waitFor(/listening on port/, 20_000);
  return { proc, url: `http://127.0.0.1:${port}/mcp` };
}

/**
 * What bench/floor-worker.mjs sends over IPC: ready, armed for n jobs, and done with them.
 * @typedef {{ type: 'ready' } | { type: 'armed' } | FloorWorkerDone} FloorWorkerMessage
 * @typedef {{ type: 'done', count: number, failed: number }} FloorWorkerDone
 */

/**
 * @param {string} redisUrl
 * @param {string} handlerUrl
 */
export async function startFloorWorker(redisUrl, handlerUrl) {
  const proc = startForked('floor-worker', join(BENCH, 'floor-worker.mjs'), {
    env: { REDIS_URL: redisUrl, HANDLER_URL: handlerUrl },
  });
  const messageOf = (/** @type {unknown} */ m) => /** @type {FloorWorkerMessage | undefined} */ (m);
  /** @type {Promise<void>} */
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`floor worker did not start:\n${proc.output()}`)), 15_000);
    proc.child.on('message', (/** @type {unknown} */ m) => {
      if (messageOf(m)?.type === 'ready') {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.child.once('exit', () => reject(new Error(`floor worker exited:\n${proc.output()}`)));
  });
  await ready;
  /**
   * Arms the worker for `n` jobs; resolves (once armed) to {done}: a promise of the finish message.
   * @param {number} n
   * @param {AbortSignal} [signal]
   * @returns {Promise<{ done: Promise<FloorWorkerDone> }>}
   */
  const arm = (n, signal) =>
    new Promise((resolveArmed, rejectArmed) => {
      /** @type {(message: FloorWorkerDone) => void} */
      let resolveDone = () => undefined;
      /** @type {(error: Error) => void} */
      let rejectDone = () => undefined;
      /** @type {Promise<FloorWorkerDone>} */
      const done = new Promise((res, rej) => ((resolveDone = res), (rejectDone = rej)));
      done.catch(() => undefined);
      const onMessage = (/** @type {unknown} */ m) => {
        const message = messageOf(m);
        if (message?.type === 'armed') resolveArmed({ done });
        if (message?.type === 'done') {
          proc.child.off('message', onMessage);
          resolveDone(message);
        }
      };
      proc.child.on('message', onMessage);
      proc.child.send({ type: 'expect', n });
      signal?.addEventListener('abort', () => {
        proc.child.off('message', onMessage);
        rejectArmed(new Error('aborted'));
        rejectDone(new Error('aborted'));
      });
    });
  return Object.assign(proc, { arm });
}

/**
 * A schema-scoped pg client for reading tool_calls.
 * @param {string} schema
 */
export async function schemaClient(schema) {
  const client = new pg.Client({ connectionString: PG_BASE, options: `-c search_path=${schema}` });
  await client.connect();
  return client;
}

/** @param {string} schema */
async function dropSchema(schema) {
  const client = new pg.Client({ connectionString: PG_BASE });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** @typedef {Awaited<ReturnType<typeof startToolgate>>} Stack */

/**
 * Toolgate's API and worker on a fresh schema. `scale` is RETRY_TIME_SCALE.
 * Returns {api, worker, baseUrl, client, db, schema, env, queue, stop()}.
 * @param {{ redisUrl: string, scale?: number, label?: string, extraEnv?: Record<string, string> }} options
 */
export async function startToolgate({ redisUrl, scale = 1, label = 'toolgate', extraEnv = {} }) {
  const dist = process.env.BENCH_DIST ?? 'dist';
  // Pass APP_DELIVERY_CONCURRENCY etc. through extraEnv; the defaults are Toolgate's own.
  await flushRedis(redisUrl);
  const schema = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const databaseUrl = `${PG_BASE}?schema=${schema}`;
  // Toolgate's URL: straight to Postgres, or through a PgBouncer of this stack's own (the floors always go straight).
  const pgbouncer = VIA_PGBOUNCER ? await startPgBouncer(PG_BASE, schema) : undefined;
  const toolgateDatabaseUrl = pgbouncer?.url ?? databaseUrl;
  const port = await freePort();
  const env = {
    DATABASE_URL: toolgateDatabaseUrl,
    REDIS_URL: redisUrl,
    AUTH_JWT_SECRET: JWT_SECRET,
    SECRETS_KEYS,
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    QUEUE_PREFIX,
    RETRY_TIME_SCALE: String(scale),
    WORKER_CONCURRENCY: '50',
    PORT: String(port),
    NODE_ENV: 'development',
    // The worker's Prometheus endpoint defaults to 9464, which another worker on this machine may hold.
    WORKER_METRICS_PORT: '0',
    // One synthetic agent long-polls hundreds of calls at once (row 8); a real agent stays under the default 20.
    AGENT_MAX_CONCURRENT_WAITS: '1000',
    // BENCH_NODE_OPTIONS: node flags for Toolgate's two processes only (a V8 heap setting to weigh, say).
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
    // BENCH_ENV='NAME=value,NAME=value': Toolgate settings to weigh in an A/B pair (a row's own extraEnv wins).
    ...benchEnv(process.env.BENCH_ENV),
    ...extraEnv,
  };
  const migrate = spawnSync(process.execPath, [join(ROOT, dist, 'scripts/db-migrate.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: toolgateDatabaseUrl },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (migrate.status !== 0)
    throw new Error(`db-migrate failed (${migrate.status}):\n${migrate.stdout}${migrate.stderr}`);

  // BENCH_PROFILE=1: V8 CPU profiles of the API and the worker into bench/profiles/ (written at exit).
  const profile = (/** @type {string} */ name) =>
    PROFILE
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${join(BENCH, 'profiles')}`,
          `--cpu-prof-name=${label}-${name}-${Date.now()}.cpuprofile`,
        ]
      : [];
  const api = start(`${label}-api`, process.execPath, [...profile('api'), join(ROOT, dist, 'apps/api/src/main.js')], {
    cwd: ROOT,
    env,
  });
  const worker = start(
    `${label}-worker`,
    process.execPath,
    [...profile('worker'), join(ROOT, dist, 'apps/worker/src/main.js')],
    { cwd: ROOT, env },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const client = apiClient(baseUrl, { connections: 400 });
  /** @type {pg.Client | undefined} */
  let db;
  const stack = {
    api,
    worker,
    baseUrl,
    client,
    schema,
    /** Straight to Postgres, on the schema: what the floors of the work use. */
    databaseUrl,
    env,
    queue: { name: TOOLGATE_QUEUE, prefix: QUEUE_PREFIX },
    async stop({ keepSchema = process.env.BENCH_KEEP_SCHEMA === '1' } = {}) {
      await client.close().catch(() => undefined);
      await db?.end().catch(() => undefined);
      // SIGTERM drains; a profiled process needs the time to write its profile.
      const grace = PROFILE ? 70_000 : 3_000;
      await Promise.all([api.stop(grace), worker.stop(grace)]);
      await pgbouncer?.proc.stop();
      if (!keepSchema) await dropSchema(schema).catch(() => undefined);
    },
  };
  try {
    // The API: /health/ready answers 200 once Postgres and Redis are reachable.
    const until = Date.now() + 45_000;
    for (;;) {
      if (!api.alive()) throw new Error(`${label} API exited:\n${api.output().slice(-3000)}`);
      if (!worker.alive()) throw new Error(`${label} worker exited:\n${worker.output().slice(-3000)}`);
      const ready = await client.call('GET', '/health/ready', { timeoutMs: 2_000 }).catch(() => null);
      if (ready?.status === 200) break;
      if (Date.now() > until) throw new Error(`${label} API not ready within 45 s:\n${api.output().slice(-3000)}`);
      await sleep(100);
    }
    // The worker: ready once its BullMQ Worker is registered on the delivery queue.
    const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(TOOLGATE_QUEUE, { connection, prefix: QUEUE_PREFIX });
    try {
      const until2 = Date.now() + 30_000;
      while ((await queue.getWorkersCount().catch(() => 0)) === 0) {
        if (!worker.alive()) throw new Error(`${label} worker exited:\n${worker.output().slice(-3000)}`);
        if (Date.now() > until2)
          throw new Error(`${label} worker not consuming within 30 s:\n${worker.output().slice(-3000)}`);
        await sleep(100);
      }
    } finally {
      await queue.close().catch(() => undefined);
      connection.disconnect();
    }
    db = await schemaClient(schema);
    return { ...stack, db };
  } catch (error) {
    await stack.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * `NAME=value,NAME=value` as an object (values hold no commas).
 * @param {string | undefined} list
 * @returns {Record<string, string>}
 */
export function benchEnv(list) {
  if (!list) return {};
  return Object.fromEntries(
    list
      .split(',')
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1)]),
  );
}

/**
 * The id of the first app on the schema of `stack`: the floors of the work store their calls as its.
 * @param {Stack} stack
 * @returns {Promise<string>}
 */
async function firstAppId(stack) {
  const db = await schemaClient(stack.schema);
  try {
    return (await db.query('SELECT id FROM apps LIMIT 1')).rows[0].id;
  } finally {
    await db.end();
  }
}

/**
 * bench/instant-floor-server.mjs on the schema of `stack` (a Toolgate started to hold the tables and the app),
 * calling `handlerUrl`, answering calls of `tool`. Returns {proc, pid, url}.
 * @param {Stack} stack
 * @param {string} handlerUrl
 * @param {string} tool
 */
export async function startInstantFloor(stack, handlerUrl, tool) {
  const appId = await firstAppId(stack);
  const proc = start('instant-floor', process.execPath, [join(BENCH, 'instant-floor-server.mjs')], {
    env: { PORT: '0', DATABASE_URL: stack.databaseUrl, HANDLER_URL: handlerUrl, APP_ID: appId, TOOL: tool },
  });
  const [, port] = await proc.waitFor(/floor listening on (\d+)/, 15_000);
  return { proc, pid: proc.pid, url: `http://127.0.0.1:${port}` };
}

/**
 * The floor of an MCP call's work through a proxy (bench/mcp-floor-proxy.mjs) on the schema of `stack`, relaying to
 * the MCP server at `mcpUrl` and storing its calls as those of the schema's first app. Returns {proc, pid, url}: its
 * MCP endpoint.
 * @param {Stack} stack
 * @param {string} mcpUrl
 */
export async function startMcpFloor(stack, mcpUrl) {
  const appId = await firstAppId(stack);
  const proc = start('mcp-floor', process.execPath, [join(BENCH, 'mcp-floor-proxy.mjs')], {
    env: { PORT: '0', DATABASE_URL: stack.databaseUrl, MCP_URL: mcpUrl, APP_ID: appId },
  });
  const [, port] = await proc.waitFor(/mcp floor listening on (\d+)/, 15_000);
  return { proc, pid: proc.pid, url: `http://127.0.0.1:${port}/mcp` };
}

/**
 * The floor of a queued call's work (bench/queued-floor-accept.mjs and bench/queued-floor-deliver.mjs, two processes
 * as Toolgate's API and worker) on the schema of `stack`, storing its calls as those of `appId` (an app of its own,
 * so that its calls are counted apart), calling `handlerUrl`, answering calls of `tool`, queueing on `redisUrl`.
 * Returns {url, acceptPid, deliverPid, output(), stop()}.
 * @param {Stack} stack
 * @param {{ appId: string, handlerUrl: string, tool: string, redisUrl: string }} options
 */
export async function startQueuedFloor(stack, { appId, handlerUrl, tool, redisUrl }) {
  const env = {
    DATABASE_URL: stack.databaseUrl,
    REDIS_URL: redisUrl,
    FLOOR_QUEUE: 'queued-floor',
    FLOOR_PREFIX: 'benchqfloor',
    FLOOR_KEY: randomBytes(32).toString('base64'),
    HANDLER_URL: handlerUrl,
  };
  const deliver = start('queued-floor-deliver', process.execPath, [join(BENCH, 'queued-floor-deliver.mjs')], { env });
  const accept = start('queued-floor-accept', process.execPath, [join(BENCH, 'queued-floor-accept.mjs')], {
    env: { ...env, PORT: '0', APP_ID: appId, TOOL: tool },
  });
  await deliver.waitFor(/queued floor worker ready/, 15_000);
  const [, port] = await accept.waitFor(/queued floor listening on (\d+)/, 15_000);
  return {
    url: `http://127.0.0.1:${port}`,
    acceptPid: accept.pid,
    deliverPid: deliver.pid,
    output: () => `${accept.output()}${deliver.output()}`,
    stop: () => Promise.all([accept.stop(), deliver.stop()]),
  };
}
