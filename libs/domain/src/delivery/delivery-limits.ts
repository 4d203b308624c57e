import { Injectable } from '@nestjs/common';
import { FleetCounters, type SlotCaps } from '../../../broadcast/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { AppsRepository } from '../../../persistence/src/index.js';
import type { Lane } from '../../../queue/src/index.js';
import { ShortLivedCache } from '../short-lived-cache.js';
import type { DeliverySlot } from './delivery-gate.js';

/** What an app's `delivery_limits` may be (API.md "Limits across the fleet"); null: no limit. */
export const DELIVERY_LIMIT_RANGES = {
  maxInFlight: { min: 1, max: 1000 },
  maxPerSecond: { min: 1, max: 10_000 },
} as const;

/** How long a process uses an app's limits as it read them: a PATCH reaches the other processes within this. */
const CACHE_MS = 1000;
/** While the in-flight cap is full, how often a waiting delivery asks again (jittered), in ms. */
const POLL_MS = 25;

/** The slot of a lane without limits (or while Redis does not answer): nothing to give back. */
const NO_LIMIT: DeliverySlot = { release: () => undefined };

/** No slot within the wait: how long until one is likely, and which limit was full. */
export interface HeldBack {
  retryInMs: number;
  reason: 'in_flight' | 'per_second';
}

/** How long to wait for a slot, how long the slot may be held at most, and what a refusal counts as. */
export interface SlotRequest {
  waitMs: number;
  /** The attempt's longest life: a slot its process did not give back (it died) frees itself after this. */
  leaseMs: number;
  /** `held`: the attempt starts later (queued); `refused`: the call is answered 429 (instant, MCP). */
  outcome: 'held' | 'refused';
}

/**
 * An app's delivery limits, held across every API and worker process (FleetCounters, in Redis): at most
 * `max_in_flight` requests to its handlers and MCP server open, at most `max_per_second` started in any second. A
 * lane without limits (an app that set none, a project's events) opens at once without asking Redis. The engine
 * opens every attempt here; a delivery waits at most `waitMs` for a slot, then is held back (queued: it starts later,
 * using no attempt) or refused (instant: 429).
 */
@Injectable()
export class DeliveryLimits {
  private readonly cached = new ShortLivedCache<SlotCaps | null>(CACHE_MS);
  /** Per limited app, the last place of this process's line of deliveries waiting for a slot. */
  private readonly lines = new Map<string, Promise<void>>();

  constructor(
    private readonly apps: AppsRepository,
    private readonly counters: FleetCounters,
    private readonly metrics: Metrics,
  ) {}

  /**
   * A slot of the lane, or why none opened within `request.waitMs`. The first ask is made at once; past it, the
   * process's deliveries of one lane wait in one line, its head alone asking Redis (every POLL_MS while the in-flight
   * cap is full, at the instant the rate allows otherwise), so a backlog costs Redis one script per poll per process.
   */
  async open(lane: Lane, request: SlotRequest): Promise<DeliverySlot | HeldBack> {
    if (lane.kind !== 'app') return NO_LIMIT;
    const caps = await this.capsOf(lane.appId);
    if (!caps) return NO_LIMIT;
    const subject = `app:${lane.appId}`;
    const until = performance.now() + request.waitMs;
    let answer = await this.counters.openSlot(subject, caps, request.leaseMs);
    if (answer.kind === 'full' && request.waitMs > 0) {
      const turn = this.queueUp(lane.appId);
      try {
        if (await turn.reached(until)) {
          while (answer.kind === 'full') {
            const pause = answer.by === 'per_second' ? answer.retryInMs : jittered(POLL_MS);
            if (pause > until - performance.now()) break;
            await new Promise((resolve) => setTimeout(resolve, pause));
            answer = await this.counters.openSlot(subject, caps, request.leaseMs);
          }
        }
      } finally {
        turn.leave();
      }
    }
    if (answer.kind === 'open') return { release: answer.release, starting: answer.starting };
    if (answer.kind === 'unchecked') return NO_LIMIT;
    this.metrics.deliveriesLimited.inc({ app_id: lane.appId, reason: answer.by, outcome: request.outcome });
    return { retryInMs: Math.max(answer.retryInMs, jittered(POLL_MS)), reason: answer.by };
  }

  /** A place in the lane's line: `reached` once every delivery before it left (false: `until` came first). */
  private queueUp(appId: string) {
    const before = this.lines.get(appId) ?? Promise.resolve();
    let leave!: () => void;
    const left = new Promise<void>((resolve) => (leave = resolve));
    const mine = before.then(() => left);
    this.lines.set(appId, mine);
    return {
      reached: async (until: number): Promise<boolean> => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), Math.max(0, until - performance.now()));
        });
        const reached = await Promise.race([before.then(() => true), late]);
        clearTimeout(timer);
        return reached;
      },
      leave: () => {
        leave();
        if (this.lines.get(appId) === mine) this.lines.delete(appId);
      },
    };
  }

  /** This process reads the app's limits again at its next delivery (the app was just changed here). */
  forget(appId: string): void {
    this.cached.forget(appId);
  }

  /** The app's caps, or null when it sets none (or is gone): read at most once a CACHE_MS per process. */
  private capsOf(appId: string): Promise<SlotCaps | null> {
    return this.cached.get(appId, async () => {
      const limits = await this.apps.deliveryLimits(appId);
      return limits && (limits.maxInFlight || limits.maxPerSecond) ? limits : null;
    });
  }
}

function jittered(ms: number): number {
  return Math.round(ms * (0.6 + Math.random() * 0.8));
}

/** Whether `open` answered a slot. */
export function isHeldBack(answer: DeliverySlot | HeldBack): answer is HeldBack {
  return 'retryInMs' in answer;
}
