import { AsyncFifoQueue, type Job, type Worker } from 'bullmq';

/** The members of BullMQ's `Worker` (6.7) its main loop uses: private there, so named here. */
interface WorkerLoop {
  id: string;
  opts: { runRetryDelay?: number };
  closing?: Promise<void>;
  paused: boolean;
  waiting: Promise<number> | null;
  blockUntil: number;
  _concurrency: number;
  mainLoopQueue: AsyncFifoQueue<Job | void> | null;
  mainLoop: () => Promise<void>;
  isRateLimited(): boolean;
  retryIfFailed<T>(fn: () => Promise<T>, opts: { delayInMs?: number; onlyEmitError?: boolean }): Promise<T | undefined>;
  _getNextJob(token: string, opts: { block: boolean }): Promise<Job | undefined>;
  processJob(job: Job, token: string, fetchNext: () => boolean): Promise<void | Job>;
  waitForRateLimit(): Promise<void>;
}

/**
 * Makes `worker` start the jobs it fetched after at most `limit` fetches. BullMQ's main loop fetches jobs one
 * round trip each while it holds fewer than its concurrency and starts none until it stops: Toolgate's worker holds
 * WORKER_CONCURRENCY × 201 jobs for its gate, so a worker started under a backlog of 20,000 jobs ran nothing for
 * 2.4 s. This is BullMQ 6.7's `mainLoop` with one more reason to stop fetching, and every job fetched by then
 * started at once (BullMQ starts one per pass). Install it before `run()` (the worker made with `autorun: false`).
 */
export function boundFetchAhead(worker: Worker, limit: number): void {
  const loop = worker as unknown as WorkerLoop;
  loop.mainLoop = () => boundedMainLoop(loop, limit);
}

async function boundedMainLoop(worker: WorkerLoop, limit: number): Promise<void> {
  const fifo = new AsyncFifoQueue<Job | void>();
  worker.mainLoopQueue = fifo;
  let tokenPostfix = 0;
  while ((!worker.closing && !worker.paused) || fifo.numTotal() > 0) {
    let fetched = 0;
    while (
      !worker.closing &&
      !worker.paused &&
      !worker.waiting &&
      fifo.numTotal() < worker._concurrency &&
      !worker.isRateLimited()
    ) {
      const token = `${worker.id}:${tokenPostfix++}`;
      const fetchedJob = worker.retryIfFailed(() => worker._getNextJob(token, { block: true }), {
        delayInMs: worker.opts.runRetryDelay,
        onlyEmitError: true,
      });
      fifo.add(fetchedJob);
      // Waiting for a job to arrive, with others to start meanwhile.
      if (worker.waiting && fifo.numTotal() > 1) break;
      // One at a time: concurrent fetches would only race for the same jobs.
      const job = await fetchedJob;
      if (!job && fifo.numTotal() > 1) break;
      // The next job is delayed: start the ones in hand rather than wait for it.
      if (worker.blockUntil) break;
      if (++fetched >= limit) break;
    }
    // Start every job in hand (fetched, or handed back by a finished job); entries without one are skipped.
    let started = false;
    do {
      const job = await fifo.fetch();
      if (job) {
        fifo.add(worker.processJob(job, job.token ?? '', () => fifo.numTotal() <= worker._concurrency));
        started = true;
      }
    } while (fifo.numQueued() > 0);
    if (!started) await worker.waitForRateLimit();
  }
  if (worker.mainLoopQueue === fifo) worker.mainLoopQueue = null;
}
