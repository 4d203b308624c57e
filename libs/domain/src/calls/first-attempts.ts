import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { ATTEMPT_DEADLINE_MARGIN_MS } from './call-transitions.js';
import { DeliverAttempt, type PreparedAttempt } from './deliver-attempt.use-case.js';

/**
 * The first attempt of a queued (wait, background) call, made by the API process that accepted it while it has a
 * free slot. Such a call is stored claimed (in progress until its attempt's deadline) and its attempt starts right
 * after the 202 is made (the next turn of the event loop): no queue job, no fetch, no claim, so two statements
 * and no Redis round trip instead of three statements and three scripts. The attempt is recorded as the worker
 * records one: a failure queues the next attempt at its offset. Should this process die during it, the reconciler
 * queues the call once its deadline passed, as it does for an attempt a worker lost.
 *
 * At most API_DELIVERY_CONCURRENCY in flight per process and APP_DELIVERY_CONCURRENCY of one app, so a handler that
 * hangs fills only its own app's slots; a slot is held until the handler answered. A call that finds no slot free is
 * queued for the worker, whose gate runs it. The attempt checks what an instant call's does: the agent's toolset as
 * this process has it cached (reloaded on every change's toolset generation), not a fresh read.
 */
@Injectable()
export class FirstAttempts implements OnModuleDestroy {
  private readonly logger = new Logger('FirstAttempts');
  private running = 0;
  /** Slots taken for calls still being stored: their attempts have not started yet. */
  private starting = 0;
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
    this.starting += 1;
    this.perApp.set(appId, app + 1);
    return true;
  }

  /** Gives back a slot taken for a call that was not stored. */
  giveBack(appId: string): void {
    this.starting -= 1;
    this.release(appId);
  }

  /** Gives back a slot. */
  private release(appId: string): void {
    const app = this.perApp.get(appId) ?? 0;
    if (app <= 0) return;
    this.running -= 1;
    if (app === 1) this.perApp.delete(appId);
    else this.perApp.set(appId, app - 1);
  }

  /**
   * Makes the attempt a slot was taken for, right after the answer to its call is made (the next turn of the event
   * loop). Not when storing the call took so long that the attempt could outlast the deadline stored with it (half
   * its margin gone: Postgres was slow): then the slot is given back and the call, in progress until that deadline,
   * is the reconciler's to queue, so that no second attempt overlaps this one. Answers whether it started.
   */
  start(attempt: Omit<PreparedAttempt, 'handlerDone'>): boolean {
    const { call } = attempt;
    this.starting -= 1;
    const latestStart =
      (call.attemptDeadline?.getTime() ?? 0) - call.attemptTimeoutS * 1000 - ATTEMPT_DEADLINE_MARGIN_MS / 2;
    if (Date.now() > latestStart) {
      this.release(call.appId);
      this.logger.warn(`call ${call.id}: stored too late for its first attempt here; the reconciler queues it`);
      return false;
    }
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
    return true;
  }

  /**
   * Takes no more slots (the calls that come now are queued) and waits, at most `timeoutMs`, for the attempts in
   * flight and those of calls still being stored; answers how many were left.
   */
  async drain(timeoutMs: number): Promise<number> {
    this.closed = true;
    const until = Date.now() + timeoutMs;
    while (this.left() > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
    return this.left();
  }

  private left(): number {
    return this.starting + this.inFlight.size;
  }

  /** An API closed without SIGTERM's drain (tests, embedding) still records what it started. */
  async onModuleDestroy(): Promise<void> {
    if (this.closed) return; // drained already, within SIGTERM's own time
    const left = await this.drain(DESTROY_DRAIN_MS);
    if (left) this.logger.warn(`${left} first attempts still in flight: the reconciler queues their calls`);
  }
}

/** How long a closing application waits for first attempts in flight (SIGTERM's drain waits longer, before it). */
const DESTROY_DRAIN_MS = 10_000;
const DRAIN_POLL_MS = 10;
