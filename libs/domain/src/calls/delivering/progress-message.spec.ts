import { describe, expect, it } from 'vitest';
import { progressMessage } from './call-transitions.js';

describe('progressMessage', () => {
  it('says which attempt failed, why, and when the next one comes', () => {
    expect(progressMessage(2, 5, { outcome: 'http_status', httpStatus: 503 }, 60_000)).toBe(
      'attempt 2 of 5 failed: 503, next in 1 min',
    );
    expect(progressMessage(1, 5, { outcome: 'timeout' }, 15_000)).toBe('attempt 1 of 5 failed: timeout, next in 15 s');
    expect(progressMessage(6, 12, { outcome: 'network' }, 2 * 3600_000)).toBe(
      'attempt 6 of 12 failed: network, next in 2 h',
    );
    expect(progressMessage(1, 5, { outcome: 'blocked_address' }, 150)).toBe(
      'attempt 1 of 5 failed: blocked address, next in 150 ms',
    );
  });
});
