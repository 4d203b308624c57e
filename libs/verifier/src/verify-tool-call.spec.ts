import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook } from '../../signing/src/index.js';
import { type HeadersLike, WebhookVerificationError, verifyToolCall, verifyToolCallFinished } from './index.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const secret = newSecret();
const eventId = '019d0000-0000-7000-8000-000000000001';
const ts = 1_785_412_800; // 2026-07-30T12:00:00Z
const now = ts * 1000;
const event = {
  event_id: eventId,
  event_type: 'tool_call',
  timestamp: '2026-07-30T12:00:00.000Z',
  app_id: 'app-id',
  installation_id: 'installation-id',
  project_id: 'project-id',
  agent_id: 'agent-id',
  dialog_id: 'dialog-id',
  tool_name: 'find_customer',
  tool_instance_id: 'tool-instance-id',
  arguments: { customer_id: '123', note: 'привет, 世界 🙂' },
  configuration: { account_id: 'store-1' },
  private_data: { access_token: 'write-only-token' },
};
const body = JSON.stringify(event);

/** The repo's signer, as the plain record a handler would receive. */
function sign(secrets: string[], id: string, timestamp: number, payload: string): Record<string, string> {
  return { ...signWebhook(secrets, id, timestamp, payload) };
}

/** Only the Toolgate or only the Standard Webhooks names. */
function pick(headers: Record<string, string>, set: 'toolgate' | 'standard'): Record<string, string> {
  return set === 'toolgate'
    ? {
        'X-Webhook-Event-Id': headers['X-Webhook-Event-Id'],
        'X-Webhook-Timestamp': headers['X-Webhook-Timestamp'],
        'X-Webhook-Signature': headers['X-Webhook-Signature'],
      }
    : {
        'webhook-id': headers['webhook-id'],
        'webhook-timestamp': headers['webhook-timestamp'],
        'webhook-signature': headers['webhook-signature'],
      };
}

function failure(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('expected verification to fail');
}

describe('verifyToolCall', () => {
  const signed = sign([secret], eventId, ts, body);

  it('returns the parsed event of a valid request under either header set', () => {
    expect(verifyToolCall(body, pick(signed, 'toolgate'), secret, { now })).toEqual(event);
    expect(verifyToolCall(body, pick(signed, 'standard'), secret, { now })).toEqual(event);
  });

  it('reads header names case-insensitively from a plain object', () => {
    const lower = Object.fromEntries(Object.entries(pick(signed, 'toolgate')).map(([k, v]) => [k.toLowerCase(), v]));
    const upper = Object.fromEntries(Object.entries(pick(signed, 'standard')).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyToolCall(body, lower, secret, { now }).event_id).toBe(eventId);
    expect(verifyToolCall(body, upper, secret, { now }).event_id).toBe(eventId);
  });

  it('accepts a WHATWG Headers instance', () => {
    expect(verifyToolCall(body, new Headers(pick(signed, 'toolgate')), secret, { now })).toEqual(event);
    expect(verifyToolCall(body, new Headers(pick(signed, 'standard')), secret, { now })).toEqual(event);
  });

  it('accepts Node-style headers with array values', () => {
    const headers: HeadersLike = {
      'x-webhook-event-id': eventId,
      'x-webhook-timestamp': String(ts),
      'x-webhook-signature': [signed['X-Webhook-Signature']],
      'content-type': undefined,
    };
    expect(verifyToolCall(body, headers, secret, { now }).event_id).toBe(eventId);
  });

  it('verifies the exact bytes whether given as string, Buffer or Uint8Array (non-ASCII body)', () => {
    const bytes = Buffer.from(body, 'utf8');
    expect(bytes.length).toBeGreaterThan(body.length); // the body really has multi-byte characters
    const headers = pick(signed, 'toolgate');
    expect(verifyToolCall(bytes, headers, secret, { now })).toEqual(event);
    expect(verifyToolCall(new Uint8Array(bytes), headers, secret, { now })).toEqual(event);
    // A Uint8Array view into a larger buffer must be read at its own offset.
    const padded = Buffer.concat([Buffer.from('xx'), bytes, Buffer.from('yy')]);
    expect(verifyToolCall(padded.subarray(2, 2 + bytes.length), headers, secret, { now })).toEqual(event);
  });

  it('accepts a secret without the whsec_ prefix', () => {
    expect(verifyToolCall(body, pick(signed, 'toolgate'), secret.slice('whsec_'.length), { now })).toEqual(event);
  });

  it('keeps lead_id when the body has one', () => {
    const withLead = JSON.stringify({ ...event, lead_id: 'lead-id' });
    const headers = sign([secret], eventId, ts, withLead);
    expect(verifyToolCall(withLead, headers, secret, { now }).lead_id).toBe('lead-id');
  });

  describe('rejects', () => {
    it.each([
      ['X-Webhook-Event-Id', ['X-Webhook-Event-Id', 'webhook-id']],
      ['X-Webhook-Timestamp', ['X-Webhook-Timestamp', 'webhook-timestamp']],
      ['X-Webhook-Signature', ['X-Webhook-Signature', 'webhook-signature']],
    ])('a request without %s (under both names)', (header, names) => {
      const headers = { ...signed };
      for (const name of names) delete headers[name];
      const error = failure(() => verifyToolCall(body, headers, secret, { now }));
      expect(error.reason).toBe('missing_header');
      expect(error.header).toBe(header);
      expect(error.message).toContain(header);
      expect(error.message).toMatch(/missing/);
    });

    it('an empty header as missing', () => {
      const headers = { ...pick(signed, 'toolgate'), 'X-Webhook-Signature': '' };
      expect(failure(() => verifyToolCall(body, headers, secret, { now })).reason).toBe('missing_header');
    });

    it.each(['abc', '1785412800.5', '-1785412800', '1e9', ' 1785412800'])('a non-integer timestamp %j', (value) => {
      const headers = { ...pick(signed, 'toolgate'), 'X-Webhook-Timestamp': value };
      const error = failure(() => verifyToolCall(body, headers, secret, { now }));
      expect(error.reason).toBe('invalid_timestamp');
      expect(error.message).toMatch(/not a whole number/);
    });

    it('a timestamp more than 5 minutes old or ahead, and accepts one at exactly 5 minutes', () => {
      const headers = pick(signed, 'toolgate');
      expect(verifyToolCall(body, headers, secret, { now: now + 300_000 })).toEqual(event);
      expect(verifyToolCall(body, headers, secret, { now: now - 300_000 })).toEqual(event);

      const old = failure(() => verifyToolCall(body, headers, secret, { now: now + 301_000 }));
      expect(old.reason).toBe('stale_timestamp');
      expect(old.message).toMatch(/too old/);
      const ahead = failure(() => verifyToolCall(body, headers, secret, { now: new Date(now - 301_000) }));
      expect(ahead.reason).toBe('stale_timestamp');
      expect(ahead.message).toMatch(/future/);
    });

    it('by the given toleranceSec', () => {
      const headers = pick(signed, 'toolgate');
      expect(verifyToolCall(body, headers, secret, { now: now + 600_000, toleranceSec: 600 })).toEqual(event);
      const error = failure(() => verifyToolCall(body, headers, secret, { now: now + 11_000, toleranceSec: 10 }));
      expect(error.reason).toBe('stale_timestamp');
    });

    it('with the real clock when no `now` is given', () => {
      const error = failure(() => verifyToolCall(body, pick(signed, 'toolgate'), secret));
      expect(error.reason).toBe('stale_timestamp');
    });

    it.each([
      ['not JSON', '{"event_id":'],
      ['an array', '[1,2]'],
      ['null', 'null'],
      ['a string', '"x"'],
    ])('a body that is %s', (_, bad) => {
      const headers = sign([secret], eventId, ts, bad);
      const error = failure(() => verifyToolCall(bad, headers, secret, { now }));
      expect(error.reason).toBe('invalid_body');
      expect(error.message).toMatch(/body is not/);
    });

    it('a body whose event_id differs from the header, even when correctly signed', () => {
      const headers = sign([secret], 'another-event', ts, body);
      const error = failure(() => verifyToolCall(body, headers, secret, { now }));
      expect(error.reason).toBe('event_id_mismatch');
      expect(error.message).toMatch(/does not match/);
    });

    it('a wrong secret', () => {
      const error = failure(() => verifyToolCall(body, pick(signed, 'toolgate'), newSecret(), { now }));
      expect(error.reason).toBe('no_matching_signature');
      expect(error.message).toMatch(/No signature/);
    });

    it('a body changed by one byte', () => {
      const tampered = body.replace('"123"', '"124"');
      const error = failure(() => verifyToolCall(tampered, pick(signed, 'toolgate'), secret, { now }));
      expect(error.reason).toBe('no_matching_signature');
    });

    it('a timestamp header changed after signing', () => {
      const headers = { ...pick(signed, 'toolgate'), 'X-Webhook-Timestamp': String(ts + 1) };
      expect(failure(() => verifyToolCall(body, headers, secret, { now })).reason).toBe('no_matching_signature');
    });

    it('the right signature under another version prefix, and garbage entries', () => {
      const digest = signed['X-Webhook-Signature'].slice('v1,'.length);
      const headers = {
        ...pick(signed, 'toolgate'),
        'X-Webhook-Signature': `v2,${digest} v1a,${digest} ${digest} v1,`,
      };
      expect(failure(() => verifyToolCall(body, headers, secret, { now })).reason).toBe('no_matching_signature');
    });
  });

  it('finds the matching v1 entry among other versions and entries', () => {
    const headers = {
      ...pick(signed, 'toolgate'),
      'X-Webhook-Signature': `v2,abc v1,AAAA ${signed['X-Webhook-Signature']}`,
    };
    expect(verifyToolCall(body, headers, secret, { now })).toEqual(event);
  });

  describe('during a secret rotation', () => {
    const current = newSecret();
    const previous = newSecret();
    const rotated = sign([current, previous], eventId, ts, body);

    it('accepts two signatures with a verifier that knows only the old or only the new secret', () => {
      expect(rotated['X-Webhook-Signature'].split(' ')).toHaveLength(2);
      expect(verifyToolCall(body, rotated, current, { now })).toEqual(event);
      expect(verifyToolCall(body, rotated, previous, { now })).toEqual(event);
      expect(failure(() => verifyToolCall(body, rotated, newSecret(), { now })).reason).toBe('no_matching_signature');
    });

    it('accepts a request signed with either secret when given both', () => {
      const both = [current, previous];
      expect(verifyToolCall(body, sign([current], eventId, ts, body), both, { now })).toEqual(event);
      expect(verifyToolCall(body, sign([previous], eventId, ts, body), both, { now })).toEqual(event);
      const stranger = sign([newSecret()], eventId, ts, body);
      expect(failure(() => verifyToolCall(body, stranger, both, { now })).reason).toBe('no_matching_signature');
    });
  });

  it('refuses to run without a usable secret', () => {
    expect(() => verifyToolCall(body, signed, [], { now })).toThrow(TypeError);
    expect(() => verifyToolCall(body, signed, 'whsec_', { now })).toThrow(TypeError);
  });

  it('matches an HMAC computed by hand', () => {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const digest = createHmac('sha256', key).update(`${eventId}.${ts}.${body}`).digest('base64');
    const headers = { 'webhook-id': eventId, 'webhook-timestamp': String(ts), 'webhook-signature': `v1,${digest}` };
    expect(verifyToolCall(body, headers, secret, { now })).toEqual(event);
  });

  describe('interoperates with the standardwebhooks package', () => {
    it('verifies a signature made by standardwebhooks', () => {
      const signature = new Webhook(secret).sign(eventId, new Date(ts * 1000), body);
      expect(signature).toMatch(/^v1,/);
      const headers = { 'webhook-id': eventId, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
      expect(verifyToolCall(Buffer.from(body), headers, secret, { now })).toEqual(event);
    });

    it('makes requests that standardwebhooks verifies', () => {
      // standardwebhooks checks the timestamp against the real clock.
      const fresh = Math.floor(Date.now() / 1000);
      const headers = sign([secret], eventId, fresh, body);
      expect(verifyToolCall(body, headers, secret)).toEqual(event);
      expect(new Webhook(secret).verify(body, headers)).toEqual(event);
    });
  });
});

describe('verifyToolCallFinished', () => {
  const webhookId = '5b0c3a8e-4c7f-4c1e-9d7a-0b6c0f7e2a11';
  const finished = JSON.stringify({
    type: 'tool_call.finished',
    call: { call_id: 'call_1', agent_id: 'a1', dialog_id: 'd1', lead_id: null, tool: 'shop_find', status: 'succeeded' },
  });

  it('accepts an event signed with the endpoint secret, as standardwebhooks does', () => {
    const headers = sign([secret], webhookId, ts, finished);
    expect(verifyToolCallFinished(finished, headers, secret, { now }).call.call_id).toBe('call_1');
    expect(verifyToolCallFinished(finished, pick(headers, 'standard'), secret, { now }).type).toBe(
      'tool_call.finished',
    );
  });

  it('refuses another secret, a changed body, a stale timestamp, and a body that is not this event', () => {
    const headers = sign([secret], webhookId, ts, finished);
    expect(failure(() => verifyToolCallFinished(finished, headers, newSecret(), { now })).reason).toBe(
      'no_matching_signature',
    );
    const changed = finished.replace('succeeded', 'failed');
    expect(failure(() => verifyToolCallFinished(changed, headers, secret, { now })).reason).toBe(
      'no_matching_signature',
    );
    expect(failure(() => verifyToolCallFinished(finished, headers, secret, { now: now + 301_000 })).reason).toBe(
      'stale_timestamp',
    );
    const other = JSON.stringify({ type: 'something.else' });
    expect(
      failure(() => verifyToolCallFinished(other, sign([secret], webhookId, ts, other), secret, { now })).reason,
    ).toBe('invalid_body');
  });
});
