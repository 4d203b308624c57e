import { createHash, randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { boundFetchAhead } from '../apps/worker/src/bounded-fetch-ahead.js';

// A worker that holds many more jobs than it runs (Toolgate's holds WORKER_CONCURRENCY × 201 for its gate) and
// meets a backlog starts the jobs it fetched after a few, not after fetching them all: BullMQ's own loop ran
// nothing for 2.4 s on 20,000 waiting jobs.
describe('the worker under a backlog', () => {
  const prefix = `tg_ahead_${randomBytes(4).toString('hex')}`;
  const jobs = 300;
  let connection: Redis;
  let queue: Queue;

  beforeAll(async () => {
    connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
    queue = new Queue('backlog', { connection, prefix });
    await queue.addBulk(Array.from({ length: jobs }, (_, i) => ({ name: 'job', data: { i } })));
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
  });

  it('starts its first job while most of the backlog still waits, and runs every job once', async () => {
    const ran: number[] = [];
    let waitingAtFirstStart: number | undefined;
    let allRan!: () => void;
    const done = new Promise<void>((resolve) => (allRan = resolve));
    const workerConnection = connection.duplicate();
    const worker = new Worker(
      'backlog',
      async (job) => {
        if (waitingAtFirstStart === undefined) waitingAtFirstStart = await queue.getWaitingCount();
        ran.push((job.data as { i: number }).i);
        if (ran.length === jobs) allRan();
      },
      { connection: workerConnection, prefix, concurrency: jobs * 10, autorun: false },
    );
    boundFetchAhead(worker, 10);
    const running = worker.run();
    try {
      await done;
    } finally {
      await worker.close();
      await running;
      workerConnection.disconnect(); // passed in, so the Worker leaves it open
    }
    // BullMQ's own loop would have fetched all 300 before starting one (0 waiting then).
    expect(waitingAtFirstStart).toBeGreaterThan(jobs / 2);
    expect(new Set(ran).size).toBe(jobs);
    expect(ran).toHaveLength(jobs);
    expect(await queue.getCompletedCount()).toBe(jobs);
  });

  it('is a copy of the main loop of the BullMQ it was written for (re-port it when BullMQ changes)', () => {
    const loop = (Worker.prototype as unknown as { mainLoop: () => unknown }).mainLoop.toString();
    const digest = createHash('sha256').update(loop).digest('hex').slice(0, 16);
    expect(digest).toBe('d59e6730522c551b');
  });
});
