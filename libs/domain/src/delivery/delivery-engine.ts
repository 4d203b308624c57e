import { Inject, Injectable } from '@nestjs/common';
import { type DeliveryJob, DeliveryQueue } from '../../../queue/src/index.js';
import { AttemptLog } from './attempt-log.js';
import { SignedSender } from './signed-sender.js';
import type { DeliverySlot } from './delivery-gate.js';
import type { AnyDeliveryKind, DeliveryKind, PreparedDelivery } from './delivery-kind.js';
import { DELIVERY_KINDS, type DeliveryKinds } from './delivery-kinds.js';

/**
 * The one engine every outbound delivery goes through, whatever its kind (Svix's worker: prepare, send, handle
 * success, handle failure). A kind says what differs (DeliveryKind); the engine takes the attempt, signs and sends
 * it (SignedSender), has the kind record it with its parent's move, tells it once (AttemptLog) and queues the next
 * attempt at its offset. An attempt holds a slot of its process's DeliveryGate until the far side answered, so the
 * record that follows holds none.
 */
@Injectable()
export class DeliveryEngine {
  constructor(
    @Inject(DELIVERY_KINDS) private readonly kinds: DeliveryKinds,
    private readonly sender: SignedSender,
    private readonly log: AttemptLog,
    private readonly queue: DeliveryQueue,
  ) {}

  /** Attempt `n` of a queued delivery (a worker's job, or a first attempt the API makes): its status after it. */
  async deliverQueued(job: DeliveryJob, slot?: DeliverySlot): Promise<string> {
    const kind: AnyDeliveryKind = this.kinds[job.kind];
    const prepared = await kind.prepare(job);
    if (!prepared) return 'not due';
    if ('stopped' in prepared) return prepared.stopped;
    const settled = await this.run(kind, prepared, slot);
    return settled.status;
  }

  /** Makes a prepared attempt (on record in progress already) and answers what its kind made of it. */
  async attempt<P, R>(kind: DeliveryKind<P, R>, prepared: PreparedDelivery<P>, slot?: DeliverySlot): Promise<R> {
    return (await this.run(kind, prepared, slot)).result;
  }

  private async run<P, R>(kind: DeliveryKind<P, R>, prepared: PreparedDelivery<P>, slot?: DeliverySlot) {
    const sent = await this.sender.send(prepared.target, prepared.body);
    slot?.release();
    const settled = await kind.settle(prepared, sent);
    this.log.record(settled.logged);
    // The job's delay is taken at enqueue time, so what the kind did after the record does not make it late.
    if (settled.next) await this.queue.enqueue(kind.job(prepared.parent, settled.next.n), settled.next.dueAt);
    return settled;
  }
}
