// The floor of a queued call's work, its delivering half (bench/queued-floor-accept.mjs queues the jobs): what
// Toolgate's worker must do for a `background` call's attempt, each step at its cheapest, without a framework. A
// BullMQ Worker (concurrency 50, as Toolgate's WORKER_CONCURRENCY in the bench) claims the call (one UPDATE for the
// claims that arrive together), opens its stored body, signs it (Standard Webhooks: HMAC-SHA256), POSTs it to the
// handler (undici), and records the attempt with the call's result (one statement for the records that arrive
// together); claims and records are grouped as Toolgate's worker groups them.
// Not done here, and done by Toolgate: the claim's read of the app, installation and tool as they are now, the
// per-app cap, the retry schedule, bounded reading of the handler's answer, the agent's wake-up, metrics.
// Env: DATABASE_URL (with ?schema=), REDIS_URL, FLOOR_QUEUE, FLOOR_PREFIX, FLOOR_KEY (32 bytes, base64), HANDLER_URL.
// Prints "queued floor worker ready".
import { randomBytes } from 'node:crypto';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import {
  bodySealer,
  floorDatabase,
  grouped,
  perSize,
  requiredEnv,
  signedHeaders,
  valueRows,
} from './lib/floor-work.mjs';

// Claims and records find their calls by primary key. Without bitmap scans: a generic plan of the claim read every
// queued call through the partial index of queued calls (its statistics lag a table filling this fast), each claim.
const db = floorDatabase(requiredEnv('DATABASE_URL'), { settings: { enable_bitmapscan: 'off' } });
const connection = new Redis(requiredEnv('REDIS_URL'), { maxRetriesPerRequest: null });
const sealer = bodySealer(Buffer.from(requiredEnv('FLOOR_KEY'), 'base64'));
const secret = randomBytes(24);
const handlerUrl = new URL(requiredEnv('HANDLER_URL'));
const handler = new Pool(handlerUrl.origin, { connections: 50 });

/** Claims `size` calls: a queued one, or one whose attempt outlived its deadline, as Toolgate's claim takes. */
const claimCalls = perSize('floor_claim_calls', (size) => {
  return `UPDATE tool_calls t SET status = 'in_progress', updated_at = $1::timestamptz,
      attempt_deadline = $1::timestamptz + make_interval(secs => t.attempt_timeout_s + 5)
    FROM (VALUES ${valueRows(size, ['text'], 1)}) AS v(id)
    WHERE t.id = v.id AND (t.status = 'queued' OR (t.status = 'in_progress' AND t.attempt_deadline < $1::timestamptz))
    RETURNING t.id, t.event_id, t.body_enc`;
});

/** Records `size` attempts that succeeded, each with its call's result. */
const recordAttempts = perSize('floor_record_attempts', (size) => {
  return `WITH v (id, started_at, duration_ms, result) AS (
      VALUES ${valueRows(size, ['text', 'timestamptz', 'int', 'text'], 1)}
    ), a AS (
      INSERT INTO tool_call_attempts (id, call_id, round, n, started_at, duration_ms, outcome, http_status)
      SELECT 'att_' || substr(v.id, 6), v.id, 1, 1, v.started_at, v.duration_ms, 'success', 200 FROM v
    )
    UPDATE tool_calls t SET status = 'succeeded', next_attempt_n = NULL, next_attempt_at = NULL,
      first_attempt_at = v.started_at, attempt_deadline = NULL, result = v.result::jsonb, result_text = v.result,
      finished_at = $1::timestamptz, updated_at = $1::timestamptz
    FROM v WHERE t.id = v.id AND t.status = 'in_progress'`;
});

/** As Toolgate's worker groups its claims and records: a second statement for 25 items, or after 20 ms. */
const SPREAD_OUT = { maxInFlight: 2, another: { waiting: 25, afterMs: 20 } };

/** Claims a queued call with those that arrived with it; resolves to the claimed rows by id. */
const claim = grouped(async (/** @type {string[]} */ ids) => {
  /** @type {import('pg').QueryResult<{ id: string, event_id: string, body_enc: string }>} */
  const { rows } = await db.query({ ...claimCalls(ids.length), values: [new Date(), ...ids] });
  return new Map(rows.map((row) => [row.id, row]));
}, SPREAD_OUT);

/** Records an attempt that succeeded with those that arrived with it; resolves once their statement committed. */
const record = grouped(
  (/** @type {[id: string, startedAt: Date, durationMs: number, result: string][]} */ items) =>
    db.query({ ...recordAttempts(items.length), values: [new Date(), ...items.flat()] }),
  SPREAD_OUT,
);

const worker = new Worker(
  requiredEnv('FLOOR_QUEUE'),
  async (job) => {
    const row = (await claim(job.data.id)).get(job.data.id);
    if (!row) return;
    const body = sealer.open(row.body_enc);
    const startedAt = Date.now();
    const headers = signedHeaders(secret, row.event_id, body, startedAt);
    const sent = await handler.request({ method: 'POST', path: handlerUrl.pathname, headers, body });
    const text = await sent.body.text();
    if (sent.statusCode !== 200) throw new Error(`handler answered ${sent.statusCode}`);
    await record([row.id, new Date(startedAt), Date.now() - startedAt, text]);
  },
  { connection, prefix: requiredEnv('FLOOR_PREFIX'), concurrency: 50 },
);
worker.on('error', (error) => console.error(`queued floor worker: ${error.message}`));
worker.on('failed', (job, error) => console.error(`queued floor job ${job?.id}: ${error.message}`));
await worker.waitUntilReady();
console.log('queued floor worker ready');

const stop = async () => {
  await worker.close(true).catch(() => undefined);
  connection.disconnect();
  await db.end().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
