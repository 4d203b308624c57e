import type { App, AttemptOutcome } from '../../../persistence/src/index.js';
import type { DeliveryJob, DeliveryKindName, Lane } from '../../../queue/src/index.js';
import type { AttemptResult } from '../../../webhook-sender/src/index.js';

/** The secrets that sign a delivery, encrypted: the current one, and those a rotation retired (still signing). */
export type SigningSecrets = Pick<App, 'webhookSecretEnc' | 'retiredWebhookSecrets'>;

/** Where one attempt of a delivery goes, and how it is signed and bounded. */
export interface DeliveryTarget {
  url: string;
  signing: SigningSecrets;
  /** The `webhook-id` header: the same on every attempt, so that the far side can drop repeats. */
  webhookId: string;
  timeoutMs: number;
  lane: Lane;
}

/** Attempt `n` of a delivery, ready to go: what it belongs to, its exact body bytes and where they go. */
export interface PreparedDelivery<P> {
  parent: P;
  n: number;
  body: string;
  target: DeliveryTarget;
}

/** What an attempt came back with: the sender's classification of the answer, and when it went out. */
export type SentDelivery = AttemptResult & { sentAt: Date };

/** An attempt as every kind's log line and metrics tell it: ids, numbers and the outcome, never a body or secret. */
export interface AttemptLogEntry {
  delivery: DeliveryKindName;
  /** What the attempt belongs to, as log fields (`call_id`, `app_id`, … or `event_id`, `project_id`, …). */
  fields: Record<string, string | number | boolean>;
  /** The same in words: `call_… (app_…, find_customer)`. */
  subject: string;
  round: number;
  n: number;
  outcome: AttemptOutcome;
  httpStatus: number | null;
  durationMs: number;
}

/** What recording an attempt did: the parent as it moved, its status, and the next attempt when one is due. */
export interface SettledDelivery<R> {
  result: R;
  status: string;
  next: { n: number; dueAt: Date } | null;
  logged: AttemptLogEntry;
}

/** One page of the reconciler's sweep of a kind: the attempts whose jobs Redis may have lost. */
export interface OverduePage {
  due: DeliveryJob[];
  /** Deliveries the sweep ended (an instant call whose process died), counted apart from those queued again. */
  ended: number;
  /** Where the next page starts; null after the last page. */
  next: string | null;
}

/**
 * What differs between kinds of delivery: how attempt `n` is taken and prepared (claimed in Postgres, its body and
 * target), what its outcome does to its parent (recorded in one statement with the parent's move), its job and its
 * overdue attempts. Signing, sending (SSRF guard, timeouts, size limits, redirects), the log line, the metrics,
 * queueing the next attempt and reconciling are the engine's (DeliveryEngine, ReconcileDeliveries), written once.
 */
export interface DeliveryKind<P, R> {
  readonly name: DeliveryKindName;
  /** Takes the attempt a job names: prepared, `stopped` with why (nothing sent), or null when it is not due. */
  prepare(job: DeliveryJob): Promise<PreparedDelivery<P> | { stopped: string } | null>;
  /** Records the attempt and moves its parent on, in one statement. */
  settle(prepared: PreparedDelivery<P>, sent: SentDelivery): Promise<SettledDelivery<R>>;
  /** The job of attempt `n` of the parent. */
  job(parent: P, n: number): DeliveryJob;
  /** One page of deliveries whose attempt is overdue or outlived its deadline, after `after` in id order. */
  overdue(after: string | null, options: { graceMs: number; pageSize: number }): Promise<OverduePage>;
}

/** A kind of any parent, as the engine holds them. */
export type AnyDeliveryKind = DeliveryKind<unknown, unknown>;
