import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook, signatureV1 } from './sign-webhook.js';
import { generateWebhookSecret } from './webhook-secret.js';

describe('signWebhook', () => {
  const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
  const body =
    '{"event_id":"019d0000-0000-7000-8000-000000000001","event_type":"tool_call","arguments":{"q":"привет"}}';

  it('signs `${event_id}.${timestamp}.${body}` with HMAC-SHA256 of the decoded key', () => {
    const expected = createHmac('sha256', Buffer.alloc(32, 3)).update(`evt.1700000000.${body}`).digest('base64');
    expect(signatureV1(secret, 'evt', 1700000000, body)).toBe(`v1,${expected}`);
    expect(signatureV1(secret, 'evt', 1700000000, Buffer.from(body))).toBe(`v1,${expected}`);
  });

  it('sends the same values under both header sets', () => {
    const headers = signWebhook([secret], 'evt', 1700000000, body);
    expect(headers['X-Webhook-Event-Id']).toBe('evt');
    expect(headers['webhook-id']).toBe('evt');
    expect(headers['X-Webhook-Timestamp']).toBe('1700000000');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-signature']).toBe(headers['X-Webhook-Signature']);
  });

  it('gives one signature per secret, space-separated, each verifiable by the standardwebhooks package', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const now = Math.floor(Date.now() / 1000);
    const headers = signWebhook([current, previous], 'evt_1', now, body);
    expect(headers['X-Webhook-Signature'].split(' ')).toHaveLength(2);
    for (const key of [current, previous]) {
      expect(new Webhook(key).verify(body, headers)).toEqual(JSON.parse(body));
    }
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });
});
