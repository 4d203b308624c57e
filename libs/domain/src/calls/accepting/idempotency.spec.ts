import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_REPLAY_MAX_BYTES, replayBody, requestHash } from './idempotency.js';

describe('requestHash', () => {
  it('ignores key order but not values', () => {
    expect(requestHash({ a: 1, b: { c: [1, 2], d: null } })).toBe(requestHash({ b: { d: null, c: [1, 2] }, a: 1 }));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: 2 }));
    expect(requestHash({ a: [1, 2] })).not.toBe(requestHash({ a: [2, 1] }));
  });
});

describe('replayBody', () => {
  it('keeps an answer of up to 64 KiB whole and a larger one in its reduced form', () => {
    const small = { result: 'x'.repeat(IDEMPOTENCY_REPLAY_MAX_BYTES - 20) };
    expect(replayBody({ status: 200, body: small, reduced: () => 'reduced' })).toBe(small);
    expect(
      replayBody({ status: 200, body: { result: 'x'.repeat(IDEMPOTENCY_REPLAY_MAX_BYTES) }, reduced: () => 'reduced' }),
    ).toBe('reduced');
    expect(
      replayBody({
        status: 200,
        body: { result: 'ж'.repeat(IDEMPOTENCY_REPLAY_MAX_BYTES / 2) },
        reduced: () => 'reduced',
      }),
    ).toBe('reduced');
  });
});
