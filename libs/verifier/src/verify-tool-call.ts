// Verifies a Toolgate `tool_call` webhook (Standard Webhooks v1). Depends on node:crypto only,
// so this folder can be copied into a handler's codebase or published on its own.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The body of a `tool_call` webhook. */
export interface ToolCallEvent {
  event_id: string;
  event_type: 'tool_call';
  timestamp: string;
  app_id: string;
  installation_id: string;
  project_id: string;
  agent_id: string;
  dialog_id: string;
  lead_id?: string;
  tool_name: string;
  tool_instance_id: string;
  arguments: Record<string, unknown>;
  configuration: Record<string, unknown>;
  private_data: Record<string, unknown>;
}

/** A WHATWG `Headers` instance, or a plain record such as Node's `IncomingHttpHeaders`. */
export type HeadersLike =
  { get(name: string): string | null } | { readonly [name: string]: string | readonly string[] | undefined };

export interface VerifyOptions {
  /** How far (seconds) the timestamp header may be from now, either way. Default 300. */
  toleranceSec?: number;
  /** "Now" in milliseconds or as a Date; tests pass it, handlers leave it out. */
  now?: Date | number;
}

export type VerificationFailure =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'stale_timestamp'
  | 'invalid_body'
  | 'event_id_mismatch'
  | 'no_matching_signature';

/** Thrown when a request must be rejected; `reason` says which check failed. */
export class WebhookVerificationError extends Error {
  readonly reason: VerificationFailure;
  /** The missing header, for `missing_header`. */
  readonly header?: string;

  constructor(reason: VerificationFailure, message: string, header?: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
    if (header !== undefined) this.header = header;
  }
}

const DEFAULT_TOLERANCE_SEC = 300;
const SECRET_PREFIX = 'whsec_';
const SIGNATURE_VERSION = 'v1,';

// Toolgate's header name first, then the Standard Webhooks name carrying the same value.
const EVENT_ID_HEADERS = ['X-Webhook-Event-Id', 'webhook-id'] as const;
const TIMESTAMP_HEADERS = ['X-Webhook-Timestamp', 'webhook-timestamp'] as const;
const SIGNATURE_HEADERS = ['X-Webhook-Signature', 'webhook-signature'] as const;

/**
 * Checks a `tool_call` webhook and returns its parsed body, or throws WebhookVerificationError.
 * `rawBody` must be the exact bytes received (not a re-serialized object), `secret` the app's
 * webhook secret, or several (current and previous) during a rotation.
 */
export function verifyToolCall(
  rawBody: string | Buffer | Uint8Array,
  headers: HeadersLike,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): ToolCallEvent {
  const signed = signedRequest(rawBody, headers, secret, options);
  const event = signed.body as ToolCallEvent;
  if (event.event_id !== signed.eventId) {
    throw new WebhookVerificationError(
      'event_id_mismatch',
      "The body's event_id does not match the X-Webhook-Event-Id header.",
    );
  }

  signed.checkSignature();
  return event;
}

/** The body of a `tool_call.finished` event, sent to a project's event endpoint when a wait or background call ends. */
export interface ToolCallFinishedEvent {
  type: 'tool_call.finished';
  call: {
    call_id: string;
    agent_id: string;
    dialog_id: string;
    lead_id: string | null;
    /** The agent-facing name the tool was called by. */
    tool: string;
    execution_mode: 'wait' | 'background';
    status: 'succeeded' | 'failed' | 'cancelled';
    result: unknown;
    result_text: string | null;
    error: { kind: string; message: string; http_status?: number } | null;
    finished_at: string;
  };
}

/**
 * Checks a `tool_call.finished` event (Standard Webhooks v1, signed with the event endpoint's secret, or several
 * during a rotation) and returns its parsed body, or throws WebhookVerificationError. The event's id is its
 * `webhook-id` header: a host drops repeats by it.
 */
export function verifyToolCallFinished(
  rawBody: string | Buffer | Uint8Array,
  headers: HeadersLike,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): ToolCallFinishedEvent {
  const signed = signedRequest(rawBody, headers, secret, options);
  signed.checkSignature();
  const event = signed.body;
  if (!('type' in event) || event.type !== 'tool_call.finished') {
    throw new WebhookVerificationError('invalid_body', 'The body is not a tool_call.finished event.');
  }
  return event as ToolCallFinishedEvent;
}

/**
 * Checks 1 and 2 (the headers are there, the timestamp is fresh) and parses the body; the caller checks the body
 * (check 3) and then the signature (check 4), in that order.
 */
function signedRequest(
  rawBody: string | Buffer | Uint8Array,
  headers: HeadersLike,
  secret: string | readonly string[],
  options: VerifyOptions,
) {
  const keys = secretKeys(secret);
  const eventId = requireHeader(headers, EVENT_ID_HEADERS);
  const timestamp = requireHeader(headers, TIMESTAMP_HEADERS);
  const signatureHeader = requireHeader(headers, SIGNATURE_HEADERS);
  checkTimestamp(timestamp, options);
  const body = parseBody(rawBody);
  return { eventId, body, checkSignature: () => checkSignature(keys, eventId, timestamp, signatureHeader, rawBody) };
}

function checkSignature(
  keys: Buffer[],
  eventId: string,
  timestamp: string,
  signatureHeader: string,
  rawBody: string | Uint8Array,
): void {
  const received = signatureHeader.split(/\s+/).filter((entry) => entry.startsWith(SIGNATURE_VERSION));
  const matches = keys.some((key) => {
    const expected = Buffer.from(sign(key, eventId, timestamp, rawBody));
    return received.some((entry) => {
      const candidate = Buffer.from(entry);
      // timingSafeEqual throws on different lengths; a length mismatch is simply not a match.
      return candidate.length === expected.length && timingSafeEqual(candidate, expected);
    });
  });
  if (!matches) {
    throw new WebhookVerificationError(
      'no_matching_signature',
      'No signature in X-Webhook-Signature matches the body signed with the webhook secret.',
    );
  }
}

/** `v1,` + base64(HMAC-SHA256(key, `${eventId}.${timestamp}.${body}`)) over the raw bytes. */
function sign(key: Buffer, eventId: string, timestamp: string, rawBody: string | Uint8Array): string {
  const hmac = createHmac('sha256', key);
  hmac.update(`${eventId}.${timestamp}.`);
  hmac.update(rawBody);
  return SIGNATURE_VERSION + hmac.digest('base64');
}

function secretKeys(secret: string | readonly string[]): Buffer[] {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  // A missing secret is a setup mistake in the handler, not a bad request: fail loudly.
  if (secrets.length === 0) throw new TypeError('verifyToolCall needs at least one webhook secret');
  return secrets.map((value) => {
    const key = Buffer.from(value.startsWith(SECRET_PREFIX) ? value.slice(SECRET_PREFIX.length) : value, 'base64');
    if (key.length === 0) throw new TypeError('verifyToolCall was given an empty webhook secret');
    return key;
  });
}

function requireHeader(headers: HeadersLike, names: readonly [string, string]): string {
  for (const name of names) {
    const value = readHeader(headers, name);
    if (value !== undefined && value !== '') return value;
  }
  throw new WebhookVerificationError('missing_header', `The ${names[0]} header (or ${names[1]}) is missing.`, names[0]);
}

function readHeader(headers: HeadersLike, name: string): string | undefined {
  if (isFetchHeaders(headers)) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    // A repeated header arrives as an array; several signature headers then add up.
    return typeof value === 'string' ? value : value.join(' ');
  }
  return undefined;
}

function isFetchHeaders(headers: HeadersLike): headers is { get(name: string): string | null } {
  return typeof (headers as { get?: unknown }).get === 'function';
}

function checkTimestamp(timestamp: string, options: VerifyOptions): void {
  if (!/^\d+$/.test(timestamp)) {
    throw new WebhookVerificationError(
      'invalid_timestamp',
      'The X-Webhook-Timestamp header is not a whole number of Unix seconds.',
    );
  }
  const tolerance = options.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  const skew = Number(timestamp) - Math.floor(nowMs / 1000);
  if (skew < -tolerance) {
    throw new WebhookVerificationError(
      'stale_timestamp',
      `The X-Webhook-Timestamp header is too old: more than ${tolerance} s in the past.`,
    );
  }
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      'stale_timestamp',
      `The X-Webhook-Timestamp header is too new: more than ${tolerance} s in the future.`,
    );
  }
}

/** The body as the event it claims to be: it counts as one only once its signature matches. */
function parseBody(rawBody: string | Uint8Array): object {
  // A view over the same memory: no copy of the body just to decode it.
  const text =
    typeof rawBody === 'string'
      ? rawBody
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new WebhookVerificationError('invalid_body', 'The body is not a JSON object.');
  }
  return parsed;
}
