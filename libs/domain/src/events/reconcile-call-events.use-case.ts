import { Injectable } from '@nestjs/common';
import { CallEventLedger } from '../../../persistence/src/index.js';
import { DeliveryQueue } from '../../../queue/src/index.js';

export interface ReconcileEventsPage {
  requeued: number;
  /** Where the next page starts; null after the last page. */
  next: string | null;
}

/**
 * Nothing is lost for events either: an event is stored by the statement that ends its call, so the reconciler only
 * re-queues events whose attempt is overdue and whose job Redis no longer holds, or that are stuck in progress past
 * their deadline (a worker died), as ReconcileToolCalls does for calls.
 */
@Injectable()
export class ReconcileCallEvents {
  constructor(
    private readonly events: CallEventLedger,
    private readonly queue: DeliveryQueue,
  ) {}

  async execute(after: string | null = null, { graceMs = 2000, pageSize = 500 } = {}): Promise<ReconcileEventsPage> {
    const page = await this.events.findOverdue(new Date(), graceMs, pageSize, after);
    const due = page.map((event) => ({ event, n: event.nextAttemptN }));
    const requeued = await this.queue.enqueueMissingEventAttempts(due);
    return { requeued, next: page.length === pageSize ? page[page.length - 1].id : null };
  }
}
