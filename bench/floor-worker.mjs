// The floor's queue consumer: a bare BullMQ Worker (concurrency 50) in its own process, forked by
// run.mjs with an IPC channel. No database, no signing, no encryption: only what any queued
// delivery has to do.
//
// Job names:
//   deliver   POST a fixed ~560 B JSON body to HANDLER_URL/ok once
//   schedule  POST to HANDLER_URL + job.data.path (a /fail-twice path); on a 503, add the next attempt as a delayed
//             job at its offset from the moment attempt 1 went out (offsets 0, 150, 600 ms), the
//             same rule Toolgate applies with RETRY_TIME_SCALE=0.01 and a 5m window
//
// IPC: the parent sends {type: 'expect', n}; the worker answers {type: 'armed'} at once and
// {type: 'done', count, failed} once n jobs have finished since then (a deliver job, or the last
// attempt of a schedule chain).
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { WEBHOOK_BODY } from './lib/body.mjs';

const {
  REDIS_URL,
  HANDLER_URL,
  FLOOR_PREFIX = 'benchfloor',
  FLOOR_QUEUE = 'floor',
  FLOOR_CONCURRENCY = '50',
} = process.env;
if (!REDIS_URL || !HANDLER_URL) throw new Error('REDIS_URL and HANDLER_URL must be set');
const OFFSETS_MS = [0, 150, 600];
const dispatcher = new Agent({ connections: 128, keepAliveTimeout: 4_000 });
const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const queueConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const queue = new Queue(FLOOR_QUEUE, { connection: queueConnection, prefix: FLOOR_PREFIX });

let expected = Infinity;
let finished = 0;
let failed = 0;
const finish = (/** @type {boolean} */ ok) => {
  finished += 1;
  if (!ok) failed += 1;
  if (finished === expected) process.send?.({ type: 'done', count: finished, failed });
};

/**
 * POSTs the body to the handler's `path`: its status.
 * @param {string} path
 * @param {string} eventId
 */
async function post(path, eventId) {
  const response = await request(`${HANDLER_URL}${path}`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', 'x-webhook-event-id': eventId },
    body: WEBHOOK_BODY,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  await response.body.dump();
  return response.statusCode;
}

const worker = new Worker(
  FLOOR_QUEUE,
  async (job) => {
    if (job.name === 'deliver') {
      const status = await post('/ok', job.data.id).catch(() => 0);
      finish(status === 200);
      return status;
    }
    const { id, n, path } = job.data;
    const sentAt = Date.now();
    const first = n === 1 ? sentAt : job.data.first;
    const status = await post(job.data.path, id).catch(() => 0);
    if (status !== 200 && n < OFFSETS_MS.length) {
      await queue.add(
        'schedule',
        { id, n: n + 1, first, path },
        {
          jobId: `${id}-a${n + 1}`,
          delay: Math.max(0, first + OFFSETS_MS[n] - Date.now()),
          removeOnComplete: true,
          removeOnFail: true,
        },
      );
    } else finish(status === 200);
    return status;
  },
  { connection, prefix: FLOOR_PREFIX, concurrency: Number(FLOOR_CONCURRENCY) },
);
worker.on('error', (error) => console.error(`floor worker: ${error.message}`));

process.on('message', (m) => {
  // The parent's one message (bench/lib/stack.mjs, startFloorWorker's arm).
  const message = /** @type {{ type: 'expect', n: number } | undefined} */ (m);
  if (message?.type === 'expect') {
    expected = message.n;
    finished = 0;
    failed = 0;
    process.send?.({ type: 'armed' });
  }
});
await worker.waitUntilReady();
process.send?.({ type: 'ready' });

const stop = async () => {
  await worker.close(true).catch(() => undefined);
  await queue.close().catch(() => undefined);
  connection.disconnect();
  queueConnection.disconnect();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('disconnect', () => void stop());
