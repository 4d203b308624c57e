import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';

const FIRST_GUESS_MS = 100;
const MIN_WAIT_MS = 5;
const MAX_WAIT_MS = 5000;
/**
 * Jobs the worker holds, waiting for a delivery slot, per slot of WORKER_CONCURRENCY: 10,000 at the default 50.
 * A held job costs a few KiB of memory and a lock renewal; a job sent back costs two Redis scripts, a later
 * fetch, and, should its wait overshoot, idle slots (a burst of 3,000 calls of one app ran at 386 calls/s with 20
 * per slot, 657 with 200).
 */
export const PARKED_PER_SLOT = 200;

/** What a job is told at the gate: run now (a slot is held), or wait outside the worker and ask again. */
export type Admission = 'run' | 'later' | 'closing';

interface Parked {
  dueAt: number;
  jobId: string;
  admit: (admission: Admission) => void;
}

interface AppState {
  inFlight: number;
  /** Moving average of this app's attempt durations: how soon a slot frees. */
  averageMs: number;
  /** This app's jobs waiting in the worker for a slot, earliest due first. */
  parked: Parked[];
  /** Jobs of this app sent back to wait outside the worker, not yet run. */
  sentBack: Set<string>;
}

/**
 * The gate in front of the processors: at most WORKER_CONCURRENCY deliveries in flight, and at most
 * APP_DELIVERY_CONCURRENCY of one app, so a handler that hangs until its timeout ties up its own app's
 * slots, never the rest. A job under both caps runs at once (two counters: the cap costs nothing then).
 * A job over them waits here, and a freed slot goes to the earliest-due waiting job of an app under its
 * cap. Each app may hold at most half of the waiting room; past that the latest-due job waits outside
 * the worker (re-delayed) for about as long as its place in the app's line takes to clear. A slot is held
 * from the attempt's claim until its handler answered: the attempt's record does not hold it.
 */
@Injectable()
export class AppDeliveryLimiter {
  /** One small entry per app this worker has delivered for (kept: it remembers the app's pace). */
  private readonly apps = new Map<string, AppState>();
  private running = 0;
  private closed = false;
  private readonly parkedPerApp: number;

  constructor(@Inject(ENV) private readonly env: Env) {
    this.parkedPerApp = Math.max(1, (env.WORKER_CONCURRENCY * PARKED_PER_SLOT) / 2);
  }

  /** Jobs the worker should take from the queue at once: the slots plus the waiting room. */
  static jobsHeld(env: Env): number {
    return env.WORKER_CONCURRENCY * (1 + PARKED_PER_SLOT);
  }

  /** Resolves 'run' once a slot is held (release it after), 'later' or 'closing' when the job must go back. */
  admit(appId: string, jobId: string, dueAt: number): Promise<Admission> {
    if (this.closed) return Promise.resolve('closing');
    const app = this.state(appId);
    if (this.running < this.env.WORKER_CONCURRENCY && app.inFlight < this.env.APP_DELIVERY_CONCURRENCY) {
      this.take(app, jobId);
      return Promise.resolve('run');
    }
    return new Promise<Admission>((admit) => {
      const entry: Parked = { dueAt, jobId, admit };
      insertByDue(app.parked, entry);
      if (app.parked.length > this.parkedPerApp) {
        const latest = app.parked.pop() as Parked;
        app.sentBack.add(latest.jobId);
        latest.admit('later');
      }
    });
  }

  release(appId: string, durationMs: number): void {
    const app = this.state(appId);
    app.inFlight = Math.max(0, app.inFlight - 1);
    app.averageMs = app.averageMs * 0.8 + durationMs * 0.2;
    this.running = Math.max(0, this.running - 1);
    this.admitWaiting();
  }

  /** How long a job sent back should wait before it asks again (jittered). */
  waitMs(appId: string, jobId: string): number {
    const app = this.state(appId);
    if (app.sentBack.size > 100_000) app.sentBack.clear(); // jobs cancelled while waiting never come back
    app.sentBack.add(jobId);
    const line = 1 + (app.sentBack.size + app.parked.length) / this.env.APP_DELIVERY_CONCURRENCY;
    const wait = Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, app.averageMs * line));
    return Math.round(wait * (0.75 + Math.random() * 0.5));
  }

  /** Sends every waiting job back (the worker is stopping); later arrivals are sent back at once. */
  close(): void {
    this.closed = true;
    for (const app of this.apps.values()) {
      for (const entry of app.parked.splice(0)) entry.admit('closing');
    }
  }

  /** Waiting jobs, for tests and metrics. */
  get waiting(): number {
    let count = 0;
    for (const app of this.apps.values()) count += app.parked.length;
    return count;
  }

  private admitWaiting(): void {
    while (this.running < this.env.WORKER_CONCURRENCY) {
      let best: AppState | undefined;
      for (const app of this.apps.values()) {
        if (app.parked.length === 0 || app.inFlight >= this.env.APP_DELIVERY_CONCURRENCY) continue;
        if (!best || app.parked[0].dueAt < best.parked[0].dueAt) best = app;
      }
      if (!best) return;
      const entry = best.parked.shift() as Parked;
      this.take(best, entry.jobId);
      entry.admit('run');
    }
  }

  private take(app: AppState, jobId: string): void {
    app.inFlight += 1;
    this.running += 1;
    if (app.sentBack.size > 0) app.sentBack.delete(jobId);
  }

  private state(appId: string): AppState {
    let app = this.apps.get(appId);
    if (!app) {
      app = { inFlight: 0, averageMs: FIRST_GUESS_MS, parked: [], sentBack: new Set() };
      this.apps.set(appId, app);
    }
    return app;
  }
}

/** Keeps `line` sorted by due time; equal due times keep their arrival order. */
function insertByDue(line: Parked[], entry: Parked): void {
  let low = 0;
  let high = line.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (line[mid].dueAt <= entry.dueAt) low = mid + 1;
    else high = mid;
  }
  line.splice(low, 0, entry);
}
