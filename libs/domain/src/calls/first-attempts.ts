import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { DeliverAttempt, type PreparedAttempt } from './deliver-attempt.use-case.js';

/**
 * The first attempt of a queued (wait, background) call, made by the API process that accepted it while it has a
 * free slot. Such a call is stored claimed (in progress until its attempt's deadline) and its attempt starts once
 * the 202 is written: no queue job, no fetch, no claim, so two statements and no Redis round trip instead of three
 * statements and three scripts. The attempt is recorded as the worker records one: a failure queues the next attempt
 * at its offset. Should this process die during it, the reconciler queues the call once its deadline passed, as it
 * does for an attempt a worker lost.
 *
 * At most API_DELIVERY_CONCURRENCY in flight per process and APP_DELIVERY_CONCURRENCY of one app, so a handler that
 * hangs fills only its own app's slots; a slot is held until the handler answered. A call that finds no slot free is
 * queued for the worker, whose gate runs it.
 */
@Injectable()
export class FirstAttempts implements OnModuleDestroy {
  private readonly logger = new Logger('FirstAttempts');
  private running = 0;
  private readonly perApp = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly deliverAttempt: DeliverAttempt,
  ) {}

  /** Holds a slot for the first attempt of one of the app's calls; false when none is free (the call is queued). */
  take(appId: string): boolean {
    if (this.closed || this.running >= this.env.API_DELIVERY_CONCURRENCY) return false;
    const app = this.perApp.get(appId) ?? 0;
    if (app >= this.env.APP_DELIVERY_CONCURRENCY) return false;
    this.running += 1;
    this.perApp.set(appId, app + 1);
    return true;
  }

  /** Gives back a slot: the handler answered, or the call it was taken for was not stored. */
  release(appId: string): void {
    const app = this.perApp.get(appId) ?? 0;
    if (app <= 0) return;
    this.running -= 1;
    if (app === 1) this.perApp.delete(appId);
    else this.perApp.set(appId, app - 1);
  }

  /** Makes the attempt a slot was taken for, once the answer to its call is written. */
  start(attempt: Omit<PreparedAttempt, 'handlerDone'>): void {
    const { call } = attempt;
    let held = true;
    const handlerDone = () => {
      if (held) this.release(call.appId);
      held = false;
    };
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.deliverAttempt.execute({ ...attempt, handlerDone }))
      .then(
        () => undefined,
        (error: unknown) =>
          this.logger.error(
            `call ${call.id}: its first attempt was not recorded (${error instanceof Error ? error.message : 'error'}); ` +
              'the reconciler queues it once its deadline passed',
          ),
      )
      .finally(() => {
        handlerDone();
        this.inFlight.delete(run);
      });
    this.inFlight.add(run);
  }

  /** Takes no more slots and waits, at most `timeoutMs`, for the attempts in flight; answers how many were left. */
  async drain(timeoutMs: number): Promise<number> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.all(this.inFlight), timeout]);
    clearTimeout(timer);
    return this.inFlight.size;
  }

  /** An API closed without SIGTERM's drain (tests, embedding) still records what it started. */
  async onModuleDestroy(): Promise<void> {
    const left = await this.drain(DESTROY_DRAIN_MS);
    if (left) this.logger.warn(`${left} first attempts still in flight: the reconciler queues their calls`);
  }
}

/** How long a closing application waits for first attempts in flight (SIGTERM's drain waits longer, before it). */
const DESTROY_DRAIN_MS = 10_000;
