import type { DeliveryKindName } from '../../../queue/src/index.js';
import type { AnyDeliveryKind } from './delivery-kind.js';

/** Every kind of delivery by its name: a job of each kind has its description here, so none waits unprocessed. */
export type DeliveryKinds = Readonly<Record<DeliveryKindName, AnyDeliveryKind>>;

/** Injection token of the kinds (DomainModule lists them). */
export const DELIVERY_KINDS = Symbol('DELIVERY_KINDS');
