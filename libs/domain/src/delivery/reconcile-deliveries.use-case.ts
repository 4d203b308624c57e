import { Inject, Injectable } from '@nestjs/common';
import { DELIVERY_KINDS as KIND_NAMES, type DeliveryKindName, DeliveryQueue } from '../../../queue/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { DELIVERY_KINDS, type DeliveryKinds } from './delivery-kinds.js';

/** Where each kind's sweep goes on from (null: from the start); a kind not named has reached its end. */
export type ReconcileCursor = Readonly<Partial<Record<DeliveryKindName, string | null>>>;

export interface ReconcilePage {
  requeued: number;
  /** Deliveries a kind ended instead (an instant call whose API process died: instant is never retried). */
  ended: number;
  /** Where the next page starts; null once every kind's sweep reached its end (the next one starts over). */
  next: ReconcileCursor | null;
}

export const RECONCILE_FROM_START: ReconcileCursor = { tool_call: null, 'tool_call.finished': null };

/**
 * Nothing is lost, of any kind: re-queues the deliveries whose attempt is overdue and whose job Redis no longer holds
 * (an emptied Redis, a failed enqueue), or that are stuck in progress past their deadline (a process died). A delivery
 * that is only late (its job waits behind a backlog) is left in its place: job ids are deterministic, and only the
 * missing ones are added. Each kind's overdue rows are read a page at a time in id order, so no backlog hides a
 * delivery behind it.
 */
@Injectable()
export class ReconcileDeliveries {
  constructor(
    @Inject(DELIVERY_KINDS) private readonly kinds: DeliveryKinds,
    private readonly queue: DeliveryQueue,
    private readonly metrics: Metrics,
  ) {}

  /** One page of each kind whose sweep has not reached its end. */
  async execute(
    cursor: ReconcileCursor = RECONCILE_FROM_START,
    { graceMs = 2000, pageSize = 500 } = {},
  ): Promise<ReconcilePage> {
    const next: Partial<Record<DeliveryKindName, string>> = {};
    let requeued = 0;
    let ended = 0;
    let more = false;
    for (const name of KIND_NAMES) {
      const after = cursor[name];
      if (after === undefined) continue;
      const page = await this.kinds[name].overdue(after, { graceMs, pageSize });
      const added = await this.queue.enqueueMissing(page.due);
      this.metrics.reconcilerRequeued.inc({ delivery: name }, added);
      requeued += added;
      ended += page.ended;
      if (page.next === null) continue;
      next[name] = page.next;
      more = true;
    }
    return { requeued, ended, next: more ? next : null };
  }
}
