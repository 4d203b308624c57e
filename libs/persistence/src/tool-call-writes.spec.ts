import { describe, expect, it } from 'vitest';
import { flatten, inIdOrder, postgresAway, worthRetryingAlone } from './tool-call-writes.js';

const pgError = (code: string) => Object.assign(new Error(code), { code });

describe('ToolCallWrites', () => {
  it('runs the items of a batch alone again after what one item may have caused, or a rolled back transaction', () => {
    for (const code of ['22P02', '22021', '54001', '23505', '23514', '21000', '40P01', '40001']) {
      expect(worthRetryingAlone(pgError(code)), code).toBe(true);
    }
    // Postgres away, a cancelled (timed out) statement, a lost connection, an error of the driver (the batch may
    // have been written): every item's answer as it is.
    expect(worthRetryingAlone(new RangeError('Invalid time value'))).toBe(false);
    for (const code of ['08006', '57014', '57P01', '53300'])
      expect(worthRetryingAlone(pgError(code)), code).toBe(false);
    expect(worthRetryingAlone(new Error('Connection terminated unexpectedly'))).toBe(false);
  });

  it("sends a batch's items in call id order, so that two statements lock the rows they share in one order", () => {
    const batch = [
      ['call_b', 1],
      ['call_c', 2],
      ['call_a', 3],
    ];
    expect(inIdOrder(batch, 0)).toEqual(['call_a', 3, 'call_b', 1, 'call_c', 2]);
    expect(
      inIdOrder(
        [
          ['att_9', 'call_z'],
          ['att_1', 'call_y'],
        ],
        1,
      ),
    ).toEqual(['att_1', 'call_y', 'att_9', 'call_z']);
  });

  it("lists a batch's values one level deep: a value that is itself a list (a JSON array argument) stays whole", () => {
    expect(flatten([['call_a', [1, 2], null], [], ['call_b', { list: [3] }]])).toEqual([
      'call_a',
      [1, 2],
      null,
      'call_b',
      { list: [3] },
    ]);
  });

  it('fails the writes waiting behind a statement that found Postgres away, not one its own timeout cancelled', () => {
    expect(postgresAway(pgError('57P01'))).toBe(true);
    expect(postgresAway(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(postgresAway(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(postgresAway(pgError('57014'))).toBe(false); // a lock on one row can cause it
    expect(postgresAway(pgError('23505'))).toBe(false);
  });
});
