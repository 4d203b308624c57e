import { createHmac } from 'node:crypto';
import { webhookSecretKey } from './webhook-secret.js';

/** `v1,` + base64(HMAC-SHA256(key, `${eventId}.${timestamp}.${body}`)) over the exact bytes sent. */
export function signatureV1(secret: string, eventId: string, timestamp: number, body: string | Buffer): string {
  const hmac = createHmac('sha256', webhookSecretKey(secret));
  hmac.update(`${eventId}.${timestamp}.`);
  hmac.update(body);
  return `v1,${hmac.digest('base64')}`;
}

export interface SignedHeaders {
  'X-Webhook-Event-Id': string;
  'X-Webhook-Timestamp': string;
  'X-Webhook-Signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The signature headers of one attempt, under Toolgate's names and the Standard Webhooks names.
 * `secrets` are the current secret first, then (during the 24 h after a rotation) the previous one:
 * each gives one space-separated `v1,` signature.
 */
export function signWebhook(
  secrets: readonly string[],
  eventId: string,
  timestamp: number,
  body: string | Buffer,
): SignedHeaders {
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  const signature = secrets.map((secret) => signatureV1(secret, eventId, timestamp, body)).join(' ');
  const seconds = String(timestamp);
  return {
    'X-Webhook-Event-Id': eventId,
    'X-Webhook-Timestamp': seconds,
    'X-Webhook-Signature': signature,
    'webhook-id': eventId,
    'webhook-timestamp': seconds,
    'webhook-signature': signature,
  };
}
