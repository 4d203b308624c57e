import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { ENV, type Env } from '../../config/src/index.js';
import { REQUEST_COMMAND_TIMEOUT_MS, createRequestConnection, withinMs } from '../../redis/src/index.js';
import { DELIVER_TOOL_CALL_JOB, type DeliverToolCallJob, TOOL_CALL_DELIVERY_QUEUE, deliveryJobId } from './jobs.js';

/** Puts delivery attempts on the queue, each at the moment it is due. */
@Injectable()
export class DeliveryQueue implements OnModuleDestroy {
  private readonly connection: Redis;
  readonly queue: Queue;

  constructor(@Inject(ENV) env: Env) {
    if (!env.REDIS_URL) throw new Error('REDIS_URL is not set');
    // Fails fast: a call is stored before it is queued, so a failed enqueue only delays it to the reconciler.
    this.connection = createRequestConnection(env.REDIS_URL);
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

  /** Fails at once while Redis is away, within 2 s when it does not answer: never waits for its return. */
  async enqueue(job: DeliverToolCallJob, delayMs: number): Promise<void> {
    const delay = Math.max(0, Math.round(delayMs));
    const added = this.queue.add(DELIVER_TOOL_CALL_JOB, job, { jobId: deliveryJobId(job), delay });
    await withinMs(added, 2 * REQUEST_COMMAND_TIMEOUT_MS, `queueing call ${job.callId}`);
  }

  /** Queues attempts due now in one round trip (the reconciler's pages); ids already queued are left as they are. */
  async enqueueNow(jobs: DeliverToolCallJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const added = this.queue.addBulk(
      jobs.map((job) => ({ name: DELIVER_TOOL_CALL_JOB, data: job, opts: { jobId: deliveryJobId(job) } })),
    );
    await withinMs(added, 5 * REQUEST_COMMAND_TIMEOUT_MS, `queueing ${jobs.length} calls`);
  }

  /** Drops a pending attempt (after a cancel); a job already running is left to find the call cancelled. */
  async remove(job: Pick<DeliverToolCallJob, 'callId' | 'round' | 'n'>): Promise<void> {
    const removed = this.queue.remove(deliveryJobId(job));
    await withinMs(removed, 2 * REQUEST_COMMAND_TIMEOUT_MS, 'removing a job').catch(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await withinMs(this.queue.close(), 2 * REQUEST_COMMAND_TIMEOUT_MS, 'closing the queue').catch(() => undefined);
    this.connection.disconnect();
  }
}
