import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { ATTEMPT_DEADLINE_MARGIN_MS } from './call-transitions.js';
import { DeliverAttempt, type PreparedAttempt } from './deliver-attempt.use-case.js';

/** An app's first attempts in this process: taken and not yet made (being stored, or waiting for a slot), and made. */
interface AppSlots {
  pending: number;
  attempting: number;
}

/** A stored call whose attempt waits for a slot of its app (or of the API) to free. */
interface Waiting {
  attempt: Omit<PreparedAttempt, 'handlerDone'>;
  latestStart: number;
}

/**
 * The first attempt of a queued (wait, background) call, made by the API process that accepted it while it has a
 * free slot. Such a call is stored claimed (in progress until its attempt's deadline) and its attempt starts right
 * after the 202 is made (the next turn of the event loop): no queue job, no fetch, no claim, so two statements
 * and no Redis round trip instead of three statements and three scripts. The attempt is recorded as the worker
 * records one: a failure queues the next attempt at its offset. Should this process die during it, the reconciler
 * queues the call once its deadline passed, as it does for an attempt a worker lost.
 *
 * At most API_DELIVERY_CONCURRENCY attempts in flight per process and APP_DELIVERY_CONCURRENCY of one app, so a
 * handler that hangs fills only its own app's slots; a slot is held from the attempt's start until the handler
 * answered. As many calls again (per process, per app) may be taken and not yet attempted: being stored, or stored
 * and waiting for a slot, which they take in the order they were stored. So the slots are not idle while calls are
 * being stored: with a slot held from before the store, row 3 of the bench made 38 % of its first attempts here,
 * 63 % this way. A call that finds as many taken already is queued for the worker, whose gate runs it. The attempt
 * checks what an instant call's does: the agent's toolset as this process has it cached (reloaded on every
 * change's toolset generation), not a fresh read.
 */
@Injectable()
export class FirstAttempts implements OnModuleDestroy {
  private readonly logger = new Logger('FirstAttempts');
  /** Attempts in flight (their handlers have not answered). */
  private attempting = 0;
  /** Calls taken whose attempts have not started: being stored, or stored and waiting for a slot. */
  private pending = 0;
  private readonly perApp = new Map<string, AppSlots>();
  /** Stored calls waiting for a slot, in the order they were stored. */
  private readonly waiting: Waiting[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly deliverAttempt: DeliverAttempt,
  ) {}

  /**
   * Takes one of the app's calls for a first attempt here; false when as many of the app's calls as its slots, or of
   * all apps' as this process's, are taken already and their attempts not started (the call is queued).
   */
  take(appId: string): boolean {
    if (this.closed || this.pending >= this.env.API_DELIVERY_CONCURRENCY) return false;
    let app = this.perApp.get(appId);
    if (!app) {
      app = { pending: 0, attempting: 0 };
      this.perApp.set(appId, app);
    } else if (app.pending >= this.env.APP_DELIVERY_CONCURRENCY) {
      return false;
    }
    app.pending += 1;
    this.pending += 1;
    return true;
  }

  /** Gives back a call taken and not stored. */
  giveBack(appId: string): void {
    const app = this.perApp.get(appId);
    if (!app || app.pending <= 0) return;
    app.pending -= 1;
    this.pending -= 1;
    this.forgetIdle(appId, app);
  }

  /**
   * Makes the attempt of a call taken and stored, right after the answer to its call is made (the next turn of the
   * event loop), or once a slot frees. Not when storing the call, or waiting for a slot, took so long that the
   * attempt could outlast the deadline stored with it (half its margin gone): then the call, in progress until that
   * deadline, is the reconciler's to queue, so that no second attempt overlaps this one. Answers whether it is made
   * here.
   */
  start(attempt: Omit<PreparedAttempt, 'handlerDone'>): boolean {
    const { call } = attempt;
    const latestStart =
      (call.attemptDeadline?.getTime() ?? 0) - call.attemptTimeoutS * 1000 - ATTEMPT_DEADLINE_MARGIN_MS / 2;
    if (Date.now() > latestStart) {
      this.giveBack(call.appId);
      this.logger.warn(`call ${call.id}: stored too late for its first attempt here; the reconciler queues it`);
      return false;
    }
    if (this.slotFree(call.appId)) this.run(attempt);
    else this.waiting.push({ attempt, latestStart });
    return true;
  }

  /**
   * Takes no more calls (the calls that come now are queued) and waits, at most `timeoutMs`, for the attempts in
   * flight and those of calls still being stored or waiting; answers how many were left.
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
    return this.pending + this.inFlight.size;
  }

  private slotFree(appId: string): boolean {
    if (this.attempting >= this.env.API_DELIVERY_CONCURRENCY) return false;
    return (this.perApp.get(appId)?.attempting ?? 0) < this.env.APP_DELIVERY_CONCURRENCY;
  }

  /** Moves a taken call's attempt from pending to in flight and makes it; its slot frees once the handler answered. */
  private run(attempt: Omit<PreparedAttempt, 'handlerDone'>): void {
    const { call } = attempt;
    const app = this.perApp.get(call.appId) as AppSlots;
    app.pending -= 1;
    this.pending -= 1;
    app.attempting += 1;
    this.attempting += 1;
    let held = true;
    const handlerDone = () => {
      if (!held) return;
      held = false;
      app.attempting -= 1;
      this.attempting -= 1;
      this.forgetIdle(call.appId, app);
      this.startWaiting();
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

  /** Starts the earliest stored waiting attempts that now have a slot; drops those past their latest start. */
  private startWaiting(): void {
    for (let i = 0; i < this.waiting.length && this.attempting < this.env.API_DELIVERY_CONCURRENCY;) {
      const { attempt, latestStart } = this.waiting[i];
      if (Date.now() > latestStart) {
        this.waiting.splice(i, 1);
        this.giveBack(attempt.call.appId);
        this.logger.warn(`call ${attempt.call.id}: no slot for its first attempt in time; the reconciler queues it`);
      } else if (this.slotFree(attempt.call.appId)) {
        this.waiting.splice(i, 1);
        this.run(attempt);
      } else {
        i += 1;
      }
    }
  }

  private forgetIdle(appId: string, app: AppSlots): void {
    if (app.pending === 0 && app.attempting === 0) this.perApp.delete(appId);
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
