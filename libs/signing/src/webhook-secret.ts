import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new app webhook secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a secret: the base64-decoded part after `whsec_`. */
export function webhookSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}
