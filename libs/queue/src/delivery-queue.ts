import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { ENV, type Env } from '../../config/src/index.js';
import { DELIVER_TOOL_CALL_JOB, type DeliverToolCallJob, TOOL_CALL_DELIVERY_QUEUE, deliveryJobId } from './jobs.js';
import { createRedisConnection } from './redis.js';

/** Puts delivery attempts on the queue, each at the moment it is due. */
@Injectable()
export class DeliveryQueue implements OnModuleDestroy {
  private readonly connection: Redis;
  readonly queue: Queue;

  constructor(@Inject(ENV) env: Env) {
    if (!env.REDIS_URL) throw new Error('REDIS_URL is not set');
    this.connection = createRedisConnection(env.REDIS_URL);
    this.connection.on('error', () => undefined); // ioredis reconnects; callers see failed commands
    this.queue = new Queue(TOOL_CALL_DELIVERY_QUEUE, {
      connection: this.connection,
      prefix: env.QUEUE_PREFIX,
      defaultJobOptions: {
        // Postgres keeps the history; a finished job's id must be free for a re-enqueue by the reconciler.
        removeOnComplete: true,
        removeOnFail: true,
        // Only for errors of Toolgate itself (e.g. Postgres away): an attempt's outcome never fails the job.
        attempts: 3,
        backoff: { type: 'exponential', delay: 1000 },
      },
    });
    this.queue.on('error', () => undefined); // failed commands reject to their callers; readiness reports Redis down
  }

  async enqueue(job: DeliverToolCallJob, delayMs: number): Promise<void> {
    await this.queue.add(DELIVER_TOOL_CALL_JOB, job, { jobId: deliveryJobId(job), delay: Math.max(0, Math.round(delayMs)) });
  }

  /** Drops a pending attempt (after a cancel); a job already running is left to find the call cancelled. */
  async remove(job: Pick<DeliverToolCallJob, 'callId' | 'round' | 'n'>): Promise<void> {
    await this.queue.remove(deliveryJobId(job)).catch(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close();
    this.connection.disconnect();
  }
}
