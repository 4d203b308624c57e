import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ErrorObject } from 'ajv';
import type { Dialect } from './json-schema-engines.mjs';

/** What a check runs long at most once its schema is compiled: a real pattern matches in microseconds. */
export const CHECK_TIME_LIMIT_MS = 200;
/** A schema of 1 MiB compiles in well under this; compiling never runs a pattern. */
const COMPILE_TIME_LIMIT_MS = 5_000;
/** Checks of one app waiting for a thread; more are refused at once. */
const WAITING_PER_APP = 16;
/** One core is the event loop's; on 2 cores, one thread. */
const THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));
/** The thread's heap: a hostile schema or argument ends the thread, not the process. */
const THREAD_HEAP_MB = 256;
const THREAD_SCRIPT = new URL('./schema-check-thread.mjs', import.meta.url);

export interface OffLoopCheck {
  /** The compiled schema's cache key: a snapshot row at one refresh. */
  key: string;
  dialect: Dialect;
  schema: object;
  args: Record<string, unknown>;
}

export type OffLoopOutcome =
  | { kind: 'valid' }
  | { kind: 'invalid'; errors: ErrorObject[] }
  /** The schema cannot be compiled (or the validator threw): the call goes out unchecked, as on the event loop. */
  | { kind: 'uncheckable'; reason: string }
  /** Out of time, too many waiting, or the thread failed: the call is refused, with the reason. */
  | { kind: 'refused'; reason: string };

type ThreadMessage = { ready: true } | { compiled: true } | { outcome: OffLoopOutcome };

interface Job {
  check: OffLoopCheck;
  resolve: (outcome: OffLoopOutcome) => void;
}

/**
 * Runs argument checks whose schemas hold regexes in worker threads, each check bounded in time: a pattern that
 * backtracks catastrophically (`^(a+)+$`) costs its caller a refusal and a new thread, never the event loop that
 * every tenant's requests share. Waiting checks are queued per app and the apps take turns, so a hostile app's
 * checks delay its own calls.
 */
@Injectable()
export class OffLoopSchemaChecks implements OnApplicationShutdown {
  private readonly waiting = new Map<string, Job[]>();
  private readonly idle: CheckThread[] = [];
  private readonly running = new Set<CheckThread>();

  check(appId: string, check: OffLoopCheck): Promise<OffLoopOutcome> {
    const queue = this.waiting.get(appId) ?? [];
    if (queue.length >= WAITING_PER_APP) {
      return Promise.resolve(refused("too many calls of this app's tools are waiting for their check; try again"));
    }
    return new Promise((resolve) => {
      queue.push({ check, resolve });
      this.waiting.set(appId, queue);
      this.startWaiting();
    });
  }

  private startWaiting(): void {
    while (this.waiting.size > 0) {
      const thread = this.idleThread() ?? (this.running.size < THREADS ? new CheckThread() : null);
      if (!thread) return;
      const [appId, queue] = this.waiting.entries().next().value as [string, Job[]];
      const job = queue.shift() as Job;
      // The app goes to the back of the line: apps take turns.
      this.waiting.delete(appId);
      if (queue.length > 0) this.waiting.set(appId, queue);
      this.running.add(thread);
      void thread.run(job.check).then((outcome) => {
        this.running.delete(thread);
        if (thread.alive) this.idle.push(thread);
        job.resolve(outcome);
        this.startWaiting();
      });
    }
  }

  private idleThread(): CheckThread | undefined {
    let thread = this.idle.pop();
    while (thread && !thread.alive) thread = this.idle.pop(); // one that failed while idle
    return thread;
  }

  async onApplicationShutdown(): Promise<void> {
    for (const queue of this.waiting.values()) for (const job of queue) job.resolve(refused('the API is stopping'));
    this.waiting.clear();
    await Promise.all([...this.idle.splice(0), ...this.running].map((thread) => thread.end()));
  }
}

function refused(reason: string): OffLoopOutcome {
  return { kind: 'refused', reason };
}

/** One worker thread running one check at a time; a check past its bound ends the thread. */
class CheckThread {
  alive = true;
  private readonly worker = new Worker(THREAD_SCRIPT, { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
  private readonly ready: Promise<boolean>;
  private current: { resolve: (outcome: OffLoopOutcome) => void; timer?: NodeJS.Timeout } | null = null;

  constructor() {
    this.worker.unref(); // an idle thread never keeps the process alive
    this.ready = new Promise((resolve) => {
      this.worker.on('message', (message: ThreadMessage) => {
        if ('ready' in message) resolve(true);
        else if ('compiled' in message)
          this.bound(CHECK_TIME_LIMIT_MS, "a pattern in the tool's inputSchema is too slow on these arguments");
        else this.settle(message.outcome);
      });
      const fail = (why: string) => {
        this.alive = false;
        resolve(false);
        this.settle(refused(`the check failed (${why})`));
      };
      this.worker.on('error', (error) => fail(error.message));
      this.worker.on('exit', () => fail('its thread ended'));
    });
  }

  async run(check: OffLoopCheck): Promise<OffLoopOutcome> {
    if (!(await this.ready)) return refused('the check failed (its thread did not start)');
    return new Promise((resolve) => {
      this.current = { resolve };
      this.bound(COMPILE_TIME_LIMIT_MS, "the tool's inputSchema is too slow to compile");
      this.worker.postMessage(check);
    });
  }

  async end(): Promise<void> {
    this.alive = false;
    this.settle(refused('the API is stopping'));
    await this.worker.terminate();
  }

  /** (Re)starts the current check's clock: past `ms`, the thread ends and the check is refused, saying `why`. */
  private bound(ms: number, why: string): void {
    if (!this.current) return;
    clearTimeout(this.current.timer);
    this.current.timer = setTimeout(() => {
      this.alive = false;
      void this.worker.terminate();
      this.settle(refused(`not checked within ${ms} ms: ${why}`));
    }, ms);
  }

  private settle(outcome: OffLoopOutcome): void {
    const current = this.current;
    if (!current) return;
    this.current = null;
    clearTimeout(current.timer);
    current.resolve(outcome);
  }
}
