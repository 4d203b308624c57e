import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { JOB_NAMES, TOOL_CALL_DELIVERY_QUEUE, jobNamesWithoutProcessor } from '../../../libs/queue/src/index.js';
import { createRedisConnection } from '../../../libs/redis/src/index.js';
import { JOB_PROCESSORS, type JobProcessor } from './job-processor.js';

export class MissingProcessorError extends Error {}

/** Consumes the delivery queue and hands each job to the processor of its name. */
@Injectable()
export class QueueConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Worker');
  private worker?: Worker;
  private connection?: Redis;
  private readonly byName: Map<string, JobProcessor>;

  constructor(
    @Inject(ENV) private readonly env: Env,
    @Inject(JOB_PROCESSORS) processors: JobProcessor[],
  ) {
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
    if (!this.env.REDIS_URL) throw new Error('REDIS_URL is not set: npm start sets it for the local Redis');
    const connection = createRedisConnection(this.env.REDIS_URL);
    this.connection = connection;
    connection.on('error', () => undefined); // the worker waits for Redis to return; the Worker reports errors
    await connection.ping();
    this.worker = new Worker(TOOL_CALL_DELIVERY_QUEUE, (job, token) => this.dispatch(job, token), {
      connection,
      prefix: this.env.QUEUE_PREFIX,
      concurrency: this.env.WORKER_CONCURRENCY,
      // A worker that died mid-attempt loses its lock within 10 s and its job runs again elsewhere.
      lockDuration: 10_000,
      stalledInterval: 5_000,
    });
    this.worker.on('error', (error) => this.logger.error(`queue error: ${error.message}`));
    this.logger.log(`consuming "${TOOL_CALL_DELIVERY_QUEUE}" with concurrency ${this.env.WORKER_CONCURRENCY}`);
  }

  private async dispatch(job: Job, token?: string): Promise<unknown> {
    const processor = this.byName.get(job.name);
    if (!processor) throw new MissingProcessorError(`no processor for job name "${job.name}"`);
    return processor.process(job, token);
  }

  /** Stops taking jobs and lets the attempts in flight finish (they need the database: call before closing it). */
  async drain(): Promise<void> {
    await this.worker?.close();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    this.connection?.disconnect(); // passed in, so the Worker leaves it open
  }
}
