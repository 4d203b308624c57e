import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ENV, type Env } from '../../../../config/src/index.js';
import type { ToolCall } from '../../../../persistence/src/index.js';
import { DeliveryQueue, toolCallJob } from '../../../../queue/src/index.js';
import { DeliveryEngine, DeliveryHeldBack } from '../../delivery/delivery-engine.js';
import { DeliveryGate } from '../../delivery/delivery-gate.js';

/**
 * The first attempt of a queued (wait, background) call, made by the API process that accepted it while its gate
 * has a free slot: at most API_DELIVERY_CONCURRENCY in flight, APP_DELIVERY_CONCURRENCY of one app. The call is
 * stored queued first, and answered so (202); its attempt starts right after the answer is made, through the same
 * executor as a worker's job (DeliveryEngine: claim, send, record), so no queue job, fetch or lock is needed.
 * Should this process die before or during it, the reconciler queues the call once it is overdue, as it does for
 * an attempt a worker lost. A call that finds no slot free is queued for the worker.
 */
@Injectable()
export class FirstAttempts implements OnModuleDestroy {
  private readonly logger = new Logger('FirstAttempts');
  private readonly gate: DeliveryGate;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @Inject(ENV) env: Env,
    private readonly engine: DeliveryEngine,
    private readonly queue: DeliveryQueue,
  ) {
    this.gate = new DeliveryGate({
      inFlight: env.API_DELIVERY_CONCURRENCY,
      perApp: env.APP_DELIVERY_CONCURRENCY,
      waitingPerSlot: 0,
    });
  }

  /** Makes attempt 1 of a call stored queued, right after its answer, if a slot is free; false: queue it. */
  offer(call: Pick<ToolCall, 'id' | 'appId' | 'round'>): boolean {
    const slot = this.gate.take(call.appId);
    if (!slot) return false;
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.engine.deliverQueued(toolCallJob(call, 1), slot))
      .catch(async (error: unknown) => {
        // Held back by the app's delivery limits (nothing taken): a worker starts it once the limit allows.
        if (!(error instanceof DeliveryHeldBack)) throw error;
        await this.queue.enqueue(toolCallJob(call, 1), new Date(Date.now() + error.retryInMs));
      })
      .then(
        () => undefined,
        (error: unknown) =>
          this.logger.error(
            `call ${call.id}: its first attempt failed here (${error instanceof Error ? error.message : 'error'}); ` +
              'the reconciler queues it',
          ),
      )
      .finally(() => {
        slot.release();
        this.inFlight.delete(run);
      });
    this.inFlight.add(run);
    return true;
  }

  /** Takes no more calls (they are queued) and waits, at most `timeoutMs`, for the attempts in flight; how many left. */
  async drain(timeoutMs: number): Promise<number> {
    this.gate.close();
    const until = Date.now() + timeoutMs;
    while (this.inFlight.size > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
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
const DRAIN_POLL_MS = 10;
