import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { ENV, type Env } from '../../config/src/index.js';
import { DELIVER_JOB, type DeliveryJob, TOOL_CALL_DELIVERY_QUEUE, deliveryJobId } from './jobs.js';
import {
  REQUEST_COMMAND_TIMEOUT_MS,
  type RedisConnection,
  createRequestConnection,
  redisTargetOf,
  withinMs,
} from '../../redis/src/index.js';
import { RoundTripBatches } from './round-trip-batches.js';

/** One attempt's job as it is added. */
interface AttemptAdd {
  name: string;
  data: DeliveryJob;
  opts: { jobId: string; delay?: number };
}

/** Puts delivery attempts on the queue, each at the moment it is due. */
@Injectable()
export class DeliveryQueue implements OnModuleDestroy {
  private readonly logger = new Logger('DeliveryQueue');
  private readonly connection: RedisConnection;
  readonly queue: Queue;
  /** Adds that arrive together (the calls one batched INSERT stored, say) go to Redis in one round trip. */
  private readonly adds = new RoundTripBatches<AttemptAdd>(
    ({ name, data, opts }) => this.queue.add(name, data, opts),
    (adds) => this.queue.addBulk(adds),
  );

  constructor(@Inject(ENV) env: Env) {
    // Fails fast: a call is stored before it is queued, so a failed enqueue only delays it to the reconciler.
    // Without auto-pipelining (see createRequestConnection): `adds` batches what arrives together.
    this.connection = createRequestConnection(redisTargetOf(env), { autoPipelining: false });
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
   * Queues an attempt of a delivery, due at `dueAt` (now when omitted). What it delivers is in Postgres already, so
   * this never fails its caller: while Redis is away (it fails at once, or within 2 s when Redis does not answer)
   * the attempt is left to the reconciler, and false says so.
   */
  async enqueue(job: DeliveryJob, dueAt?: Date): Promise<boolean> {
    const delay = dueAt ? Math.max(0, Math.round(dueAt.getTime() - Date.now())) : 0;
    const added = this.adds.run({ name: DELIVER_JOB, data: job, opts: { jobId: deliveryJobId(job), delay } });
    return this.leftToReconciler(added, `${job.kind} ${job.id}: attempt ${job.n}`);
  }

  private async leftToReconciler(added: Promise<unknown>, what: string): Promise<boolean> {
    try {
      await withinMs(added, 2 * REQUEST_COMMAND_TIMEOUT_MS, `queueing ${what}`);
      return true;
    } catch (error) {
      this.logger.warn(`${what} not queued (${(error as Error).message}); the reconciler will`);
      return false;
    }
  }

  /**
   * Queues the attempts due now whose job Redis no longer holds (the reconciler's pages), and says how many: one
   * round trip asks which jobs exist, one adds the missing. A job still waiting, delayed or running is left as it
   * is, so a backlog that is only late costs a lookup per call, not an add.
   */
  async enqueueMissing(jobs: DeliveryJob[]): Promise<number> {
    return this.addMissing(jobs.map((data) => ({ name: DELIVER_JOB, data, opts: { jobId: deliveryJobId(data) } })));
  }

  private async addMissing(jobs: AttemptAdd[]): Promise<number> {
    if (jobs.length === 0) return 0;
    // One pipeline even on a Redis Cluster: the job keys share the hash tag of QUEUE_PREFIX, so one slot and node.
    const lookup = this.connection.pipeline(jobs.map((job) => ['exists', this.queue.toKey(job.opts.jobId)]));
    const found = await withinMs(lookup.exec(), 5 * REQUEST_COMMAND_TIMEOUT_MS, `looking up ${jobs.length} jobs`);
    const missing = jobs.filter((_, i) => {
      const [error, exists] = found?.[i] ?? [null, 0];
      return error !== null || exists !== 1; // a lookup that failed is taken for a missing job (an add is harmless)
    });
    if (missing.length === 0) return 0;
    const added = this.queue.addBulk(missing);
    await withinMs(added, 5 * REQUEST_COMMAND_TIMEOUT_MS, `queueing ${missing.length} jobs`);
    return missing.length;
  }

  /** Drops a pending attempt (after a cancel); a job already running is left to find the call cancelled. */
  async remove(job: DeliveryJob): Promise<void> {
    const removed = this.queue.remove(deliveryJobId(job));
    await withinMs(removed, 2 * REQUEST_COMMAND_TIMEOUT_MS, 'removing a job').catch(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await withinMs(this.queue.close(), 2 * REQUEST_COMMAND_TIMEOUT_MS, 'closing the queue').catch(() => undefined);
    this.connection.disconnect();
  }
}
