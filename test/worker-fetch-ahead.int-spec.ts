import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseEnv } from '../libs/config/src/index.js';
import { DELIVER_JOB, TOOL_CALL_DELIVERY_QUEUE, deliveryJobId, toolCallJob } from '../libs/queue/src/index.js';
import { JOB_PROCESSORS, type JobProcessor } from '../apps/worker/src/job-processor.js';
import { WAITING_PER_SLOT } from '../apps/worker/src/queue-consumer.js';
import { WorkerModule } from '../apps/worker/src/worker.module.js';
import { TEST_SECRETS_KEYS, freshDatabase } from './support/test-api.js';
import { TEST_JWT_SECRET } from './support/tokens.js';

// The worker holds more jobs than it runs (WORKER_CONCURRENCY × (1 + WAITING_PER_SLOT), for its gate). BullMQ's
// worker fetches all it may hold before it starts one, so that bound is also what a worker meeting a backlog (a
// restart under load, Redis back) fetches before its first delivery.
describe('the worker under a backlog', () => {
  const jobs = 300;
  let connection: Redis;
  let queue: Queue;
  let prefix: string;
  let databaseUrl: string;

  beforeAll(async () => {
    const database = await freshDatabase();
    databaseUrl = database.databaseUrl;
    prefix = `tg_ahead_${database.name}`;
    connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
    queue = new Queue(TOOL_CALL_DELIVERY_QUEUE, { connection, prefix });
    await queue.addBulk(
      Array.from({ length: jobs }, (_, n) => ({
        name: DELIVER_JOB,
        data: toolCallJob({ id: `call_${n}`, appId: 'app_1', round: 1 }, 1),
        opts: { jobId: deliveryJobId(toolCallJob({ id: `call_${n}`, appId: 'app_1', round: 1 }, 1)) },
      })),
    );
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
  });

  it('starts its first job once it holds what its gate holds, the rest still in Redis, and runs every job once', async () => {
    const ran: string[] = [];
    let waitingAtFirstStart: number | undefined;
    let allRan!: () => void;
    const done = new Promise<void>((resolve) => (allRan = resolve));
    const processor: JobProcessor = {
      jobName: DELIVER_JOB,
      process: async (job) => {
        if (waitingAtFirstStart === undefined) waitingAtFirstStart = await queue.getWaitingCount();
        ran.push(job.id ?? '');
        if (ran.length === jobs) allRan();
      },
    };
    const env = parseEnv({
      DATABASE_URL: databaseUrl,
      REDIS_URL: inject('redisUrl'),
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      SECRETS_KEYS: TEST_SECRETS_KEYS,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      WORKER_METRICS_PORT: '0',
      WORKER_CONCURRENCY: '2',
    });
    const module = await Test.createTestingModule({ imports: [WorkerModule.forRoot(env)] })
      .overrideProvider(JOB_PROCESSORS)
      .useValue([processor])
      .compile();
    const worker: INestApplicationContext = await module.init();
    try {
      await done;
    } finally {
      await worker.close();
    }
    // After at most what the gate holds: 2 × (1 + WAITING_PER_SLOT) fetches.
    expect(waitingAtFirstStart).toBeGreaterThanOrEqual(jobs - 2 * (1 + WAITING_PER_SLOT));
    expect(new Set(ran).size).toBe(jobs);
    expect(ran).toHaveLength(jobs);
  });
});
