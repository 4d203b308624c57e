import { describe, expect, it } from 'vitest';
import { DatabaseBusyError, isDatabaseUnavailable } from './database-unavailable.js';

/** A Postgres error as Prisma passes it on from the driver adapter. */
const adapterError = (code: string) => ({
  message: 'x',
  meta: { driverAdapterError: { cause: { kind: 'postgres', code } } },
});

describe('isDatabaseUnavailable', () => {
  it('recognises an unreachable, closed, silent or overloaded Postgres', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error("Can't reach database server"), { code: 'P1001' }))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(Object.assign(new Error('closed'), { code: 'P1017' }))).toBe(true);
    expect(isDatabaseUnavailable({ name: 'PrismaClientInitializationError', message: 'x' })).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Query read timeout'))).toBe(true);
    expect(isDatabaseUnavailable(adapterError('57P01'))).toBe(true);
    expect(
      isDatabaseUnavailable(new Error('wrapped', { cause: { kind: 'postgres', code: '57014', message: 'canceling' } })),
    ).toBe(true);
  });

  it('recognises the same from the hot path, where `pg` passes on the socket error or the SQLSTATE itself', () => {
    expect(
      isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(true);
    // A batched write that waited too long behind statements Postgres did not answer (StatementBatcher).
    expect(isDatabaseUnavailable(new DatabaseBusyError('no statement within 2000 ms'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('invalid input syntax'), { code: '22P02' }))).toBe(false);
  });

  it('leaves every other error alone', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('Unique constraint failed'), { code: 'P2002' }))).toBe(false);
    expect(isDatabaseUnavailable(adapterError('22P02'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('Cannot read properties of undefined'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(isDatabaseUnavailable(loop)).toBe(false);
  });
});
