import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { ENV, type Env } from '../../config/src/index.js';
import {
  DELIVER_TOOL_CALL_JOB,
  type DeliverToolCallJob,
  TOOL_CALL_DELIVERY_QUEUE,
  attemptJob,
  deliveryJobId,
} from './jobs.js';
import { REQUEST_COMMAND_TIMEOUT_MS, createRequestConnection, withinMs } from '../../redis/src/index.js';

/** The fields of a call its attempt's job is made of. */
type QueuedCall = Parameters<typeof attemptJob>[0];

/** Puts delivery attempts on the queue, each at the moment it is due. */
@Injectable()
export class DeliveryQueue implements OnModuleDestroy {
  private readonly logger = new Logger('DeliveryQueue');
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

  /**
   * Queues attempt `n` of the call's current round, due at `dueAt` (now when omitted). The call is in Postgres already, so
   * this never fails its caller: while Redis is away (it fails at once, or within 2 s when Redis does not
   * answer) the attempt is left to the reconciler, and false says so.
   */
  async enqueueAttempt(call: QueuedCall, n: number, dueAt?: Date): Promise<boolean> {
    const job = attemptJob(call, n);
    const delay = dueAt ? Math.max(0, Math.round(dueAt.getTime() - Date.now())) : 0;
    const added = this.queue.add(DELIVER_TOOL_CALL_JOB, job, { jobId: deliveryJobId(job), delay });
    try {
      await withinMs(added, 2 * REQUEST_COMMAND_TIMEOUT_MS, `queueing call ${call.id}`);
      return true;
    } catch (error) {
      this.logger.warn(`call ${call.id}: attempt ${n} not queued (${(error as Error).message}); the reconciler will`);
      return false;
    }
  }

  /** Queues attempts due now in one round trip (the reconciler's pages); ids already queued are left as they are. */
  async enqueueDueAttempts(attempts: { call: QueuedCall; n: number }[]): Promise<void> {
    if (attempts.length === 0) return;
    const jobs = attempts.map(({ call, n }) => attemptJob(call, n));
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
