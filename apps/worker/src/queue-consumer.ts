import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DelayedError, type Job, Worker } from 'bullmq';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { DeliveryGate, DeliveryHeldBack } from '../../../libs/domain/src/index.js';
import {
  JOB_NAMES,
  TOOL_CALL_DELIVERY_QUEUE,
  deliveryJobOf,
  jobNamesWithoutProcessor,
  laneKey,
} from '../../../libs/queue/src/index.js';
import { type RedisConnection, createRedisConnection, redisTargetOf } from '../../../libs/redis/src/index.js';
import { JOB_PROCESSORS, type JobProcessor } from './job-processor.js';

export class MissingProcessorError extends Error {}

/**
 * Jobs the worker holds waiting for a delivery slot, per slot of WORKER_CONCURRENCY: 1,000 at the default 50. A held
 * job costs a few KiB and a lock renewal; a job sent back costs two Redis scripts and a later fetch. BullMQ's worker
 * fetches everything it may hold (one round trip each) before it starts a job, so this also bounds how long a worker
 * started under a backlog waits before its first delivery (about 0.25 ms a job here).
 */
export const WAITING_PER_SLOT = 20;

/**
 * Consumes the delivery queue and hands each job to the processor of its name, through the DeliveryGate that caps
 * deliveries in flight (per worker and per lane: an app's, a project's events). The worker holds more jobs than it runs, so that the gate
 * can run the earliest due first: a retry due now does not wait behind a burst queued before it.
 */
@Injectable()
export class QueueConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Worker');
  private worker?: Worker;
  private connection?: RedisConnection;
  private readonly byName: Map<string, JobProcessor>;
  private readonly gate: DeliveryGate;

  constructor(
    @Inject(ENV) private readonly env: Env,
    @Inject(JOB_PROCESSORS) processors: JobProcessor[],
  ) {
    this.gate = new DeliveryGate({
      inFlight: env.WORKER_CONCURRENCY,
      perApp: env.APP_DELIVERY_CONCURRENCY,
      waitingPerSlot: WAITING_PER_SLOT,
    });
    const missing = jobNamesWithoutProcessor(
      JOB_NAMES,
      processors.map((p) => p.jobName),
    );
    if (missing.length > 0) {
      throw new MissingProcessorError(`refusing to start: no processor for job name(s) ${missing.join(', ')}`);
    }
    this.byName = new Map(processors.map((p) => [p.jobName, p]));
  }

  async onApplicationBootstrap(): Promise<void> {
    const connection = createRedisConnection(redisTargetOf(this.env));
    this.connection = connection;
    connection.on('error', () => undefined); // the worker waits for Redis to return; the Worker reports errors
    await connection.ping();
    this.worker = new Worker(TOOL_CALL_DELIVERY_QUEUE, (job, token) => this.dispatch(job, token), {
      connection,
      prefix: this.env.QUEUE_PREFIX,
      concurrency: this.gate.capacity,
      // A worker that died mid-attempt loses its lock within 10 s and its job runs again elsewhere.
      lockDuration: 10_000,
      stalledInterval: 5_000,
      autorun: false,
    });
    this.worker.on('error', (error) => this.logger.error(`queue error: ${error.message}`));
    this.worker.run().catch((error: Error) => this.logger.error(`queue error: ${error.message}`));
    this.logger.log(`consuming "${TOOL_CALL_DELIVERY_QUEUE}" with concurrency ${this.env.WORKER_CONCURRENCY}`);
  }

  private async dispatch(job: Job, token?: string): Promise<unknown> {
    const processor = this.byName.get(job.name);
    if (!processor) throw new MissingProcessorError(`no processor for job name "${job.name}"`);
    const lane = laneOfJob(job);
    const jobId = job.id ?? '';
    const admission = await this.gate.admit(lane, jobId, dueAt(job));
    if (typeof admission === 'string') {
      // Back to the queue: a full lane waits outside the worker; at shutdown another worker takes it at once.
      const wait = admission === 'later' ? this.gate.waitMs(lane, jobId) : 0;
      await job.moveToDelayed(Date.now() + wait, token);
      throw new DelayedError();
    }
    try {
      return await processor.process(job, admission);
    } catch (error) {
      if (!(error instanceof DeliveryHeldBack)) throw error;
      // Held back by the app's delivery limits: not an attempt (none was taken), so no attempt of BullMQ's either.
      await job.moveToDelayed(Date.now() + error.retryInMs, token);
      throw new DelayedError();
    } finally {
      admission.release();
    }
  }

  /** Stops taking jobs and lets the attempts in flight finish (they need the database: call before closing it). */
  async drain(): Promise<void> {
    await this.close();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
    this.connection?.disconnect(); // passed in, so the Worker leaves it open
  }

  private async close(): Promise<void> {
    const closed = this.worker?.close();
    this.gate.close(); // the jobs waiting for a slot go back to the queue; the running ones finish
    await closed;
  }
}

/** The key of the lane whose cap a job counts against (a job that is no delivery's shares a single lane). */
function laneOfJob(job: Job): string {
  const delivery = deliveryJobOf(job.data);
  return delivery ? laneKey(delivery.lane) : '';
}

/** When the job was due: queued plus its delay (a job sent back to wait keeps its first due time). */
function dueAt(job: Job): number {
  return job.timestamp + (job.opts.delay ?? 0);
}
