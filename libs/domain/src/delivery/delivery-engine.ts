import { Inject, Injectable } from '@nestjs/common';
import { type DeliveryJob, DeliveryQueue, type Lane } from '../../../queue/src/index.js';
import { DomainError } from '../errors.js';
import { AttemptLog } from './attempt-log.js';
import { SignedSender } from './signed-sender.js';
import type { DeliverySlot } from './delivery-gate.js';
import type { AnyDeliveryKind, DeliveryKind, PreparedDelivery } from './delivery-kind.js';
import { DELIVERY_KINDS, type DeliveryKinds } from './delivery-kinds.js';
import { DeliveryLimits, type HeldBack, isHeldBack } from './delivery-limits.js';

/** How long an attempt made now (an instant call, an MCP call, a test call) waits for a slot of its app's limits. */
export const INSTANT_SLOT_WAIT_MS = 2000;
/** A queued attempt's longest life (its timeout is at most 120 s): a slot a dead process held frees after it. */
const QUEUED_LEASE_MS = 130_000;
/** Added to an attempt's own timeout for the life of its slot. */
const LEASE_SLACK_MS = 5000;

/** A queued attempt its app's delivery limits held back: nothing was taken or sent; it starts in `retryInMs`. */
export class DeliveryHeldBack extends Error {
  readonly retryInMs: number;

  constructor(held: HeldBack) {
    super(`held back by the app's delivery limit (${held.reason}) for ${held.retryInMs} ms`);
    this.retryInMs = held.retryInMs;
  }
}

/**
 * The one engine every outbound delivery goes through, whatever its kind (Svix's worker: prepare, send, handle
 * success, handle failure). A kind says what differs (DeliveryKind); the engine opens the attempt under its lane's
 * fleet-wide limits (DeliveryLimits), takes it, signs and sends it (SignedSender), has the kind record it with its
 * parent's move, tells it once (AttemptLog) and queues the next attempt at its offset. An attempt holds its slots
 * (its process's DeliveryGate's, its app's limits') until the far side answered, so the record that follows holds
 * none.
 */
@Injectable()
export class DeliveryEngine {
  constructor(
    @Inject(DELIVERY_KINDS) private readonly kinds: DeliveryKinds,
    private readonly sender: SignedSender,
    private readonly log: AttemptLog,
    private readonly queue: DeliveryQueue,
    private readonly limits: DeliveryLimits,
  ) {}

  /**
   * Attempt `n` of a queued delivery (a worker's job, or a first attempt the API makes): its status after it. Waits
   * at most `waitMs` for a slot of the lane's limits, then throws DeliveryHeldBack before taking the attempt.
   */
  async deliverQueued(job: DeliveryJob, slot?: DeliverySlot, waitMs = 0): Promise<string> {
    const limit = await this.limits.open(job.lane, { waitMs, leaseMs: QUEUED_LEASE_MS, outcome: 'held' });
    if (isHeldBack(limit)) throw new DeliveryHeldBack(limit);
    try {
      const kind: AnyDeliveryKind = this.kinds[job.kind];
      const prepared = await kind.prepare(job);
      if (!prepared) return 'not due';
      if ('stopped' in prepared) return prepared.stopped;
      const settled = await this.run(kind, prepared, [slot, limit]);
      return settled.status;
    } finally {
      limit.release();
    }
  }

  /**
   * A slot of the lane's limits for an attempt made now, held at most its `timeoutMs` (and a margin): waits up to
   * INSTANT_SLOT_WAIT_MS, else refuses with 429 (rate_limited) and Retry-After. Called before the call is stored, so
   * that a refused call leaves nothing; released by `attempt` (or the caller, should it not get there).
   */
  async openNow(lane: Lane, timeoutMs: number): Promise<DeliverySlot> {
    const leaseMs = timeoutMs + LEASE_SLACK_MS;
    const limit = await this.limits.open(lane, { waitMs: INSTANT_SLOT_WAIT_MS, leaseMs, outcome: 'refused' });
    if (!isHeldBack(limit)) return limit;
    const cap = limit.reason === 'in_flight' ? 'max_in_flight' : 'max_per_second';
    throw DomainError.rateLimited(
      `The tool's app is at its delivery limit (${cap}): no request to it could start within ` +
        `${INSTANT_SLOT_WAIT_MS / 1000} s, and nothing was sent. Retry after the Retry-After seconds.`,
      Math.max(1, Math.ceil(limit.retryInMs / 1000)),
    );
  }

  /** Makes a prepared attempt (on record in progress already) and answers what its kind made of it. */
  async attempt<P, R>(kind: DeliveryKind<P, R>, prepared: PreparedDelivery<P>, slot?: DeliverySlot): Promise<R> {
    return (await this.run(kind, prepared, [slot])).result;
  }

  private async run<P, R>(
    kind: DeliveryKind<P, R>,
    prepared: PreparedDelivery<P>,
    slots: (DeliverySlot | undefined)[],
  ) {
    let sent;
    try {
      for (const slot of slots) await slot?.starting?.();
      sent = await this.sender.send(prepared.target, prepared.body);
    } finally {
      for (const slot of slots) slot?.release();
    }
    const settled = await kind.settle(prepared, sent);
    this.log.record(settled.logged);
    // The job's delay is taken at enqueue time, so what the kind did after the record does not make it late.
    if (settled.next) await this.queue.enqueue(kind.job(prepared.parent, settled.next.n), settled.next.dueAt);
    return settled;
  }
}
