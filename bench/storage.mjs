#!/usr/bin/env node
// The scale row of issue 10: what 2 million stored calls cost. On its own throw-away schemas of the
// Postgres at 127.0.0.1:5432/test (BENCH_PG_URL), migrated with Toolgate's migrations: measures the
// accept INSERT, delivery's two UPDATEs and the reconciler scan on an empty table, loads STORAGE_N
// (2,000,000) synthetic calls with one attempt each (INSERT … SELECT generate_series), then measures
// the same again, the developer's list page per filter (the compiled ToolCallLedger.listForApp
// from dist/, with the plan of the SQL it issues), the retention prune batch (and accept latency
// while it runs), and the bytes each call takes, with and without bodies (STORAGE_EMPTY_N rows).
// Prints a table and writes the section "2 million stored calls" of bench/RESULTS.md.
// Needs `npm run build`. Usage: node bench/storage.mjs (~5–10 min on 2 busy cores)
import 'reflect-metadata';
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompactEncrypt } from 'jose';
import pg from 'pg';
import { CALL_ARGUMENTS, WEBHOOK_BODY } from './lib/body.mjs';
import { fmt, percentile } from './lib/stats.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PG_BASE = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const N = Number(process.env.STORAGE_N ?? 2_000_000);
const EMPTY_N = Number(process.env.STORAGE_EMPTY_N ?? 200_000);
const SAMPLES = Number(process.env.STORAGE_SAMPLES ?? 200);
const DAY_MS = 86_400_000;
const RETENTION_DAYS = 30;
const BIG_APP = 'app_big';
const DEVELOPER = 'dev_storage';

const dist = (/** @type {string} */ path) => join(ROOT, 'dist', path);
if (!existsSync(dist('libs/persistence/src/index.js'))) {
  console.error('bench/storage.mjs needs the build: npm run build');
  process.exit(2);
}
// The compiled repositories run; their types are the source's.
/** @type {typeof import('../libs/persistence/src/index.js')} */
const persistence = await import(dist('libs/persistence/src/index.js'));
const log = (/** @type {string} */ message) =>
  console.error(`[storage ${new Date().toISOString().slice(11, 19)}] ${message}`);
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @typedef {{ text: string, values?: unknown[] }} Statement */

// Records the SQL the compiled repositories send through pg, so that its plan can be shown.
/** @type {Statement[]} */
const captured = [];
let capturing = false;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called on its own client, `this` (Reflect.apply)
const originalQuery = pg.Client.prototype.query;
/**
 * pg's `query` with the statement recorded first (any of its overloads: the arguments go through as they came).
 * @this {pg.Client}
 * @param {unknown[]} args
 */
function recordedQuery(...args) {
  const [config, values] = args;
  if (
    capturing &&
    typeof config === 'object' &&
    config !== null &&
    'text' in config &&
    typeof config.text === 'string'
  ) {
    const own = 'values' in config && Array.isArray(config.values) ? config.values : undefined;
    captured.push({ text: config.text, values: own ?? (Array.isArray(values) ? values : undefined) });
  }
  return Reflect.apply(originalQuery, this, args);
}
pg.Client.prototype.query = /** @type {typeof originalQuery} */ (recordedQuery);

const suffix = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const schemas = { full: `storage_${suffix}`, empty: `storage_${suffix}_nobody` };
const admin = new pg.Client({ connectionString: PG_BASE });
await admin.connect();
/** @type {pg.Client[]} */
const clients = [];
/** @type {import('../libs/persistence/src/index.js').PrismaService[]} */
const prismas = [];
/** @type {import('../libs/persistence/src/index.js').DatabasePool[]} */
const pools = [];

/** @param {string} schema */
async function schemaClient(schema) {
  const client = new pg.Client({ connectionString: PG_BASE, options: `-c search_path=${schema}` });
  await client.connect();
  clients.push(client);
  return client;
}

/** @param {string} schema */
function repositories(schema) {
  const url = `${PG_BASE}?schema=${schema}`;
  const db = new persistence.DatabasePool(url);
  const prisma = new persistence.PrismaService(db); // one pool for both, as in Toolgate
  prismas.push(prisma);
  pools.push(db);
  return {
    calls: new persistence.ToolCallLedger(prisma, db),
    finished: new persistence.FinishedToolCallsRepository(db),
  };
}

/** @param {() => Promise<unknown>} fn */
async function timeMs(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** @param {(i: number) => Promise<unknown>} fn */
async function sample(fn, n = SAMPLES, warmup = 10) {
  for (let i = 0; i < warmup; i++) await fn(i);
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < n; i++) times.push(await timeMs(() => fn(i)));
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/**
 * The plan's access paths: "Index Scan using x", "Seq Scan on y", …
 * @param {string[]} planLines
 */
function accessPaths(planLines) {
  const paths = new Set();
  for (const line of planLines) {
    const match = /(Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan)(?: Backward)? (?:using|on) (\S+)/.exec(line);
    if (match && !/^apps/.test(match[2])) paths.add(`${match[1].replace(' Scan', '')} ${match[2]}`);
  }
  return [...paths].join(', ') || '?';
}

/**
 * @param {pg.Client} client
 * @param {Statement} statement
 */
async function explain(client, { text, values }) {
  /** @type {pg.QueryResult<{ 'QUERY PLAN': string }>} */
  const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
  const lines = rows.map((row) => row['QUERY PLAN']);
  const execution = lines.find((line) => line.startsWith('Execution Time'));
  return { paths: accessPaths(lines), ms: Number(/([\d.]+) ms/.exec(execution ?? '')?.[1] ?? NaN), lines };
}

/**
 * The last SQL statement on tool_calls that `fn` sent through the compiled repository.
 * @param {() => Promise<unknown>} fn
 */
async function capture(fn) {
  captured.length = 0;
  capturing = true;
  try {
    await fn();
  } finally {
    capturing = false;
  }
  return [...captured].reverse().find((query) => /tool_calls/.test(query.text));
}

// ---- synthetic rows -------------------------------------------------------------------------

const jwe = await new CompactEncrypt(new TextEncoder().encode(WEBHOOK_BODY))
  .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'k1' })
  .encrypt(randomBytes(32));
const RESULT = { found: true, customer: { id: 'c-000123', name: 'Jane Doe', orders: 3 }, status: 'delivered' };
const EXCERPT = JSON.stringify(RESULT);

/** @param {string} schema */
async function migrate(schema) {
  await persistence.applyMigrations(`${PG_BASE}?schema=${schema}`);
  const client = await schemaClient(schema);
  await client.query('INSERT INTO developers (id) VALUES ($1)', [DEVELOPER]);
  await client.query(
    `INSERT INTO apps (id, developer_id, name, display_name, webhook_secret_enc, agent_tools_enabled, updated_at)
     SELECT id, $1, id, id, $2, true, now() FROM unnest($3::text[]) AS id`,
    [DEVELOPER, jwe, [BIG_APP, ...Array.from({ length: 9 }, (_, i) => `app_small_${i}`)]],
  );
  return client;
}

/**
 * Rows `from`..`to` of the synthetic history: 60 days of calls, oldest first, 80 % of them to one app;
 * tool t<k> takes 1/2^(k+1) of the calls (t0 half, t10 one in 2,000), agents are skewed the same way;
 * 97 % succeed, 2.5 % fail, 0.5 % are cancelled; the newest 2,000 are still active (queued or in progress).
 * @param {pg.Client} client
 * @param {number} from
 * @param {number} to
 * @param {number} total
 * @param {boolean} withBodies
 */
async function loadCalls(client, from, to, total, withBodies) {
  const now = Date.now();
  await client.query(
    `WITH rows AS (
       SELECT n, hashint4(n) AS h, hashint4(n + 7919) AS h2, hashint4(n + 104729) AS h3,
              to_timestamp(($3::float8 - 5184000000.0 + n * (5184000000.0 / $4::int::float8)) / 1000) AT TIME ZONE 'UTC' AS at
       FROM generate_series($1::int, $2::int) AS n
     ), calls AS (
       SELECT n, at, 'call_' || lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7'
                || lpad(to_hex(n % 4096), 3, '0') || substr(md5(n::text), 1, 16) AS id,
              CASE WHEN abs(h) % 10 < 8 THEN '${BIG_APP}' ELSE 'app_small_' || (abs(h2) % 9) END AS app_id,
              't' || least(19, floor(-ln((abs(h3) % 1048576 + 1) / 1048577.0::float8) / ln(2)))::int AS tool_name,
              'agent_' || floor(power((abs(h) % 100003) / 100003.0, 3) * 1000)::int AS agent_id,
              CASE WHEN n > $4::int - 1000 THEN 'queued' WHEN n > $4::int - 2000 THEN 'in_progress'
                   WHEN abs(h2) % 1000 < 5 THEN 'cancelled' WHEN abs(h2) % 1000 < 30 THEN 'failed' ELSE 'succeeded' END AS status
       FROM rows
     ), inserted AS (
       INSERT INTO tool_calls (id, event_id, app_id, installation_id, project_id, agent_id, tool_instance_id, tool_kind,
         tool_name, agent_tool_name, dialog_id, execution_mode, retry_window, attempt_timeout_s, handler_url, arguments,
         body_enc, status, next_attempt_n, next_attempt_at, first_attempt_at, attempt_deadline, result, error,
         accepted_at, finished_at, updated_at)
       SELECT id, substr(md5(id), 1, 8) || '-' || substr(md5(id), 9, 4) || '-7' || substr(md5(id), 14, 3) || '-8'
                || substr(md5(id), 18, 3) || '-' || substr(md5(id), 21, 12),
              app_id, 'inst_' || md5(app_id), 'proj_' || md5(agent_id), agent_id, 'ti_' || md5(app_id || tool_name), 'http',
              tool_name, app_id || '_' || tool_name, 'dialog-' || (n % 50000), 'background', '5m', 30,
              'https://shop.example.com/hooks/' || tool_name,
              CASE WHEN $5::boolean THEN $6::jsonb ELSE '{}'::jsonb END,
              CASE WHEN $5::boolean THEN substr(md5(id), 1, 8) || substr($7::text, 9) END,
              status,
              CASE WHEN status IN ('queued', 'in_progress') THEN 1 END,
              CASE WHEN status = 'queued' THEN now() + interval '1 hour' END,
              at, CASE WHEN status = 'in_progress' THEN now() + interval '1 hour' END,
              CASE WHEN $5::boolean AND status = 'succeeded' THEN $8::jsonb END,
              CASE WHEN status = 'failed' THEN '{"kind":"http_status","message":"the handler answered 503"}'::jsonb
                   WHEN status = 'cancelled' THEN '{"kind":"cancelled","message":"cancelled by the agent"}'::jsonb END,
              at, CASE WHEN status NOT IN ('queued', 'in_progress') THEN at + interval '200 milliseconds' END, at
       FROM calls
       RETURNING id, status, first_attempt_at
     )
     INSERT INTO tool_call_attempts (id, call_id, round, n, started_at, duration_ms, outcome, http_status, response_excerpt)
     SELECT 'att_' || md5(id), id, 1, 1, first_attempt_at, 12,
            CASE WHEN status = 'failed' THEN 'http_status' ELSE 'success' END,
            CASE WHEN status = 'failed' THEN 503 ELSE 200 END,
            CASE WHEN $5::boolean THEN $9::text END
     FROM inserted WHERE status NOT IN ('queued', 'in_progress')`,
    [from, to, now, total, withBodies, JSON.stringify(CALL_ARGUMENTS), jwe, JSON.stringify(RESULT), EXCERPT],
  );
}

/**
 * @param {pg.Client} client
 * @param {number} total
 * @param {boolean} withBodies
 */
async function load(client, total, withBodies) {
  const chunk = 250_000;
  for (let from = 1; from <= total; from += chunk) {
    await loadCalls(client, from, Math.min(total, from + chunk - 1), total, withBodies);
    log(`${Math.min(total, from + chunk - 1).toLocaleString('en-US')} / ${total.toLocaleString('en-US')} calls`);
  }
  await client.query('VACUUM ANALYZE tool_calls');
  await client.query('VACUUM ANALYZE tool_call_attempts');
}

/**
 * @param {pg.Client} client
 * @param {number} calls
 */
async function bytesPerCall(client, calls) {
  /** @type {pg.QueryResult<{ relname: string, heap: string, indexes: string, toast: string, total: string }>} */
  const { rows } = await client.query(
    `SELECT c.relname, pg_relation_size(c.oid) AS heap, pg_indexes_size(c.oid) AS indexes,
            coalesce(pg_total_relation_size(c.reltoastrelid), 0) AS toast, pg_total_relation_size(c.oid) AS total
     FROM pg_class c WHERE c.relname IN ('tool_calls', 'tool_call_attempts') AND c.relnamespace = current_schema()::regnamespace`,
  );
  const sum = (/** @type {'heap' | 'indexes' | 'toast' | 'total'} */ key) =>
    rows.reduce((acc, row) => acc + Number(row[key]), 0);
  const totalOf = (/** @type {string} */ name) => {
    const row = rows.find((r) => r.relname === name);
    if (!row) throw new Error(`no table ${name} in the schema`);
    return Number(row.total);
  };
  return {
    heap: sum('heap') / calls,
    indexes: sum('indexes') / calls,
    toast: sum('toast') / calls,
    total: sum('total') / calls,
    callsTotal: totalOf('tool_calls') / calls,
    attemptsTotal: totalOf('tool_call_attempts') / calls,
    totalBytes: sum('total'),
  };
}

// ---- the hot path's statements --------------------------------------------------------------

let accepted = 0;
/** @param {pg.Client} client */
async function acceptInsert(client) {
  accepted += 1;
  const id = `call_bench_${suffix}_${accepted}`;
  await client.query(
    `INSERT INTO tool_calls (id, event_id, app_id, installation_id, project_id, agent_id, tool_instance_id, tool_kind,
       tool_name, agent_tool_name, dialog_id, execution_mode, retry_window, attempt_timeout_s, handler_url, arguments,
       body_enc, status, next_attempt_n, next_attempt_at, updated_at)
     VALUES ($1, $2, '${BIG_APP}', 'inst_x', 'proj_x', 'agent_1', 'ti_x', 'http', 't1', 'app_big_t1', 'dialog-1',
       'background', '5m', 30, 'https://shop.example.com/hooks/t1', $3, $4, 'queued', 1, now(), now())`,
    [id, `evt_${suffix}_${accepted}`, JSON.stringify(CALL_ARGUMENTS), jwe],
  );
  return id;
}

/**
 * Delivery's writes on a call: claimed (in progress), then finished with its attempt.
 * @param {pg.Client} client
 * @param {string} id
 */
async function deliver(client, id) {
  await client.query(
    `UPDATE tool_calls SET status = 'in_progress', attempt_deadline = now() + interval '30 seconds'
     WHERE id = $1 AND round = 1 AND next_attempt_n = 1 AND status = 'queued' RETURNING id`,
    [id],
  );
  await client.query(
    `WITH attempt AS (INSERT INTO tool_call_attempts (id, call_id, round, n, started_at, duration_ms, outcome, http_status)
       VALUES ('att_' || $1, $1, 1, 1, now(), 12, 'success', 200))
     UPDATE tool_calls SET status = 'succeeded', next_attempt_n = NULL, next_attempt_at = NULL, first_attempt_at = now(),
       attempt_deadline = NULL, result = $2::jsonb, finished_at = now(), updated_at = now()
     WHERE id = $1 AND round = 1 AND status = 'in_progress' RETURNING id`,
    [id, JSON.stringify(RESULT)],
  );
}

/**
 * @param {pg.Client} client
 * @param {ReturnType<typeof repositories>} repos
 */
async function hotPath(client, repos) {
  // Both sides start with no dirty pages: a checkpoint still writing out the load would slow every commit measured.
  await client.query('CHECKPOINT');
  /** @type {string[]} */
  const ids = [];
  const accept = await sample(async () => ids.push(await acceptInsert(client)));
  let next = 0;
  const delivery = await sample(() => deliver(client, ids[next++]));
  const reconcile = await sample(() => repos.calls.findOverdue(new Date(), 2000, 500), 50, 3);
  return { accept, delivery, reconcile };
}

// ---- run ------------------------------------------------------------------------------------

/** @type {[label: string, filters: import('../libs/persistence/src/index.js').ToolCallFilters][]} */
const FILTERS = [
  ['none', {}],
  ['status=failed', { status: 'failed' }],
  ['status=queued (active)', { status: 'queued' }],
  ['tool_name=t1 (25 %)', { toolName: 't1' }],
  ['tool_name=t10 (0.05 %)', { toolName: 't10' }],
  ['agent_id=agent_0 (busiest)', { agentId: 'agent_0' }],
  ['agent_id=agent_700', { agentId: 'agent_700' }],
  ['status=failed, tool_name=t1', { status: 'failed', toolName: 't1' }],
  ['status=cancelled, tool_name=t10', { status: 'cancelled', toolName: 't10' }],
  ['status=failed, agent_id=agent_0', { status: 'failed', agentId: 'agent_0' }],
  ['tool_name=t1, agent_id=agent_0', { toolName: 't1', agentId: 'agent_0' }],
  ['all three (failed, t1, agent_0)', { status: 'failed', toolName: 't1', agentId: 'agent_0' }],
];

/**
 * The statement on tool_calls that `fn` sent through the compiled repository: it must send one.
 * @param {string} what
 * @param {() => Promise<unknown>} fn
 */
async function captureOne(what, fn) {
  const statement = await capture(fn);
  if (!statement) throw new Error(`${what} sent no statement on tool_calls`);
  return statement;
}

/** Measures everything on the throw-away schemas, and drops them. */
async function measure() {
  try {
    log(`schemas ${schemas.full}, ${schemas.empty}`);
    const full = await migrate(schemas.full);
    const fullRepos = repositories(schemas.full);
    const emptyTable = await hotPath(full, fullRepos);
    await full.query('TRUNCATE tool_calls CASCADE');
    log('hot path on the empty table measured; loading');

    const loadStarted = Date.now();
    await load(full, N, true);
    const loadS = (Date.now() - loadStarted) / 1000;
    const bytes = await bytesPerCall(full, N);
    const empty = await migrate(schemas.empty);
    await load(empty, EMPTY_N, false);
    const bytesEmpty = await bytesPerCall(empty, EMPTY_N);
    log(`loaded in ${loadS.toFixed(0)} s`);

    const fullTable = await hotPath(full, fullRepos);
    /** @type {pg.QueryResult<{ n: number }>} */
    const indexes = await full.query(
      `SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'tool_calls'
       AND (indexdef NOT LIKE '% WHERE %' OR indexdef LIKE '% WHERE (status = ''queued''::text)')`,
    );
    const insertIndexes = indexes.rows[0].n;
    const overdue = await capture(() => fullRepos.calls.findOverdue(new Date(), 2000, 500));
    const reconcilePlan = overdue ? await explain(full, overdue) : null;

    const lists = [];
    for (const [label, filters] of FILTERS) {
      const page = { limit: 20 };
      const query = await captureOne('listForApp', () => fullRepos.calls.listForApp(DEVELOPER, BIG_APP, filters, page));
      const times = await sample(() => fullRepos.calls.listForApp(DEVELOPER, BIG_APP, filters, page));
      const rows = (await fullRepos.calls.listForApp(DEVELOPER, BIG_APP, filters, page)).items.length;
      lists.push({ label, ...times, rows, plan: await explain(full, query) });
      log(`list ${label}: p50 ${fmt(times.p50)} ms`);
    }

    // The prune: batches of 500 at the retention cutoff (half the history is older), accept timed meanwhile.
    const cutoff = new Date(Date.now() - RETENTION_DAYS * DAY_MS);
    const pruneStatement = await captureOne('purgeFinishedBefore', () =>
      fullRepos.finished.purgeFinishedBefore(cutoff, 500),
    );
    const prunePlan = await explain(full, pruneStatement); // deletes one more batch
    /** @type {number[]} */
    const batchTimes = [];
    /** @type {number[]} */
    const acceptDuring = [];
    let pruning = true;
    const acceptLoop = (async () => {
      const writer = await schemaClient(schemas.full);
      while (pruning) acceptDuring.push(await timeMs(() => acceptInsert(writer)));
    })();
    for (let batch = 0; batch < 20; batch++) {
      batchTimes.push(await timeMs(() => fullRepos.finished.purgeFinishedBefore(cutoff, 500)));
      await sleep(20);
    }
    pruning = false;
    await acceptLoop;
    const prune = {
      p50: percentile(batchTimes, 50),
      max: Math.max(...batchTimes),
      acceptDuring: { p50: percentile(acceptDuring, 50), p99: percentile(acceptDuring, 99), n: acceptDuring.length },
    };
    return { emptyTable, loadS, bytes, bytesEmpty, fullTable, insertIndexes, reconcilePlan, lists, prunePlan, prune };
  } finally {
    for (const prisma of prismas) await prisma.$disconnect().catch(() => undefined);
    for (const db of pools) await db.end().catch(() => undefined);
    for (const client of clients) await client.end().catch(() => undefined);
    if (!process.env.BENCH_KEEP_SCHEMA) {
      for (const schema of Object.values(schemas))
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    }
    await admin.end().catch(() => undefined);
  }
}

const started = Date.now();
const uptimeBefore = execSync('uptime').toString().trim();
const measured = await measure();
const report = {
  ...measured,
  uptimeBefore,
  uptimeAfter: execSync('uptime').toString().trim(),
  minutes: (Date.now() - started) / 60000,
};

// ---- report ---------------------------------------------------------------------------------

const ms = (/** @type {number | undefined} */ value) => `${fmt(value)} ms`;
const kb = (/** @type {number} */ bytes) => `${fmt(bytes)} B`;
const hot = (/** @type {'accept' | 'delivery' | 'reconcile'} */ key) => [report.emptyTable[key], report.fullTable[key]];
/** @type {string[]} */
const lines = [];
lines.push('## 2 million stored calls', '');
lines.push(
  `Written by \`node bench/storage.mjs\` on ${new Date().toISOString()} (${report.minutes.toFixed(1)} min); ` +
    `${N.toLocaleString('en-US')} synthetic calls with one attempt each (bodies: the ~560 B webhook body as a real JWE, ` +
    `the call's arguments, a 90 B result), 80 % of them in one app, over 60 days; loaded in ${report.loadS.toFixed(0)} s. ` +
    `Postgres 127.0.0.1:5432, its own schema, VACUUM ANALYZE after the load, a CHECKPOINT before each side is ` +
    `measured. Latencies are from a client on the same machine (${SAMPLES} samples after a warm-up; the reconciler ` +
    `scan 50).`,
  '',
  `- load when it started: \`${report.uptimeBefore}\``,
  `- load when it ended: \`${report.uptimeAfter}\``,
  '- the machine (2 cores) was shared with other work while it ran: the figures are noisy, the plans are not',
  '',
);
lines.push('| statement | empty table p50 / p99 | 2 M calls p50 / p99 | plan at 2 M |', '| --- | --- | --- | --- |');
const [accept0, accept1] = hot('accept');
const [deliver0, deliver1] = hot('delivery');
const [reconcile0, reconcile1] = hot('reconcile');
lines.push(
  `| accept: one INSERT (with body) | ${ms(accept0.p50)} / ${ms(accept0.p99)} | ${ms(accept1.p50)} / ` +
    `${ms(accept1.p99)} | ${report.insertIndexes} index entries (the partial indexes of finished and ` +
    `in-progress calls: none) |`,
);
lines.push(
  `| delivery: claim UPDATE + record (INSERT attempt, UPDATE call) | ${ms(deliver0.p50)} / ` +
    `${ms(deliver0.p99)} | ${ms(deliver1.p50)} / ${ms(deliver1.p99)} | by primary key |`,
);
lines.push(
  `| reconciler scan (ToolCallLedger.findOverdue, limit 500) | ${ms(reconcile0.p50)} / ${ms(reconcile0.p99)} | ` +
    `${ms(reconcile1.p50)} / ${ms(reconcile1.p99)} | ${report.reconcilePlan?.paths ?? '?'} (${ms(report.reconcilePlan?.ms)} in Postgres) |`,
);
lines.push(
  `| retention prune: one batch of 500 calls + their attempts | – | ${ms(report.prune.p50)} p50, ${ms(report.prune.max)} max ` +
    `(20 batches) | ${report.prunePlan.paths} |`,
);
lines.push(
  `| accept while those batches ran | – | ${ms(report.prune.acceptDuring.p50)} / ${ms(report.prune.acceptDuring.p99)} ` +
    `(${report.prune.acceptDuring.n} inserts) | |`,
  '',
);
lines.push(
  `The developer's call list, \`GET /v1/apps/{app_id}/tool-calls\` (the compiled ToolCallLedger.listForApp, page of 20, ` +
    `the app with ${fmt((0.8 * N) / 1e6)} M calls; tool t<k> has 1/2^(k+1) of the calls, 2.5 % failed, agents skewed):`,
  '',
  '| filter | rows | p50 | p99 | plan (index) | Postgres time |',
  '| --- | --- | --- | --- | --- | --- |',
);
for (const list of report.lists) {
  lines.push(
    `| ${list.label} | ${list.rows} | ${ms(list.p50)} | ${ms(list.p99)} | ${list.plan.paths} | ${ms(list.plan.ms)} |`,
  );
}
lines.push('');
const b = report.bytes;
const e = report.bytesEmpty;
lines.push(
  'Bytes stored per call (tool_calls + tool_call_attempts: heap, indexes, TOAST; one attempt per call):',
  '',
  '| | heap | indexes | TOAST | total per call | of which the call / its attempt | table size |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  `| with bodies (${N.toLocaleString('en-US')} calls) | ${kb(b.heap)} | ${kb(b.indexes)} | ${kb(b.toast)} | **${kb(b.total)}** | ` +
    `${kb(b.callsTotal)} / ${kb(b.attemptsTotal)} | ${fmt(b.totalBytes / 2 ** 20)} MiB |`,
  `| without bodies (${EMPTY_N.toLocaleString('en-US')} calls: no body_enc, \`{}\` arguments, no result or excerpt) | ${kb(e.heap)} | ` +
    `${kb(e.indexes)} | ${kb(e.toast)} | **${kb(e.total)}** | ${kb(e.callsTotal)} / ${kb(e.attemptsTotal)} | ` +
    `${fmt((e.total * N) / 2 ** 20)} MiB at 2 M |`,
  '',
  `At the default CALL_RETENTION_DAYS=30 the table holds 30 days of calls: ${fmt(b.total)} B × calls per day × 30.`,
  '',
);
const section = lines.join('\n');
console.log(section);

const resultsPath = join(ROOT, 'bench/RESULTS.md');
const previous = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '';
const start = previous.indexOf('## 2 million stored calls');
let updated;
if (start === -1) updated = `${previous.trimEnd()}\n\n${section}`;
else {
  const end = previous.indexOf('\n## ', start + 1);
  updated = previous.slice(0, start) + section + (end === -1 ? '' : previous.slice(end + 1));
}
writeFileSync(resultsPath, updated.endsWith('\n') ? updated : `${updated}\n`);
log('wrote the section "2 million stored calls" of bench/RESULTS.md');
process.exit(0);
