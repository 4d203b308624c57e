import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';

const FIRST_GUESS_MS = 100;
const MIN_WAIT_MS = 5;
const MAX_WAIT_MS = 5000;

interface AppState {
  inFlight: number;
  /** Moving average of this app's attempt durations: how soon a slot frees. */
  averageMs: number;
  /** Jobs of this app sent back to wait for a slot, not yet run. */
  waiting: Set<string>;
}

/**
 * At most APP_DELIVERY_CONCURRENCY deliveries of one app in flight in this worker: a handler
 * that hangs until its timeout, or fails every call, ties up its own app's slots, never the rest.
 * A job over the cap waits outside the worker for about as long as its place in the app's line
 * takes to clear (the app's recent attempt duration × the jobs ahead of it ÷ the cap), so a
 * fast app's burst is spread, not churned, and a hanging app's jobs come back rarely.
 */
@Injectable()
export class AppDeliveryLimiter {
  /** One small entry per app this worker has delivered for (kept: it remembers the app's pace). */
  private readonly apps = new Map<string, AppState>();

  constructor(@Inject(ENV) private readonly env: Env) {}

  tryAcquire(appId: string, jobId: string): boolean {
    const app = this.state(appId);
    if (app.inFlight >= this.env.APP_DELIVERY_CONCURRENCY) return false;
    app.inFlight += 1;
    app.waiting.delete(jobId);
    return true;
  }

  release(appId: string, durationMs: number): void {
    const app = this.state(appId);
    app.inFlight = Math.max(0, app.inFlight - 1);
    app.averageMs = app.averageMs * 0.8 + durationMs * 0.2;
  }

  /** How long a job over the cap should wait before it asks again (jittered). */
  waitMs(appId: string, jobId: string): number {
    const app = this.state(appId);
    if (app.waiting.size > 100_000) app.waiting.clear(); // jobs cancelled while waiting never come back
    app.waiting.add(jobId);
    const line = 1 + app.waiting.size / this.env.APP_DELIVERY_CONCURRENCY;
    const wait = Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, app.averageMs * line));
    return Math.round(wait * (0.75 + Math.random() * 0.5));
  }

  private state(appId: string): AppState {
    let app = this.apps.get(appId);
    if (!app) {
      app = { inFlight: 0, averageMs: FIRST_GUESS_MS, waiting: new Set() };
      this.apps.set(appId, app);
    }
    return app;
  }
}
