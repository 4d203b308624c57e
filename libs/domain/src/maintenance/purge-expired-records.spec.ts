import { describe, expect, it } from 'vitest';
import {
  FinishedToolCallsRepository,
  IdempotencyKeysRepository,
  LaunchCodesRepository,
  type DatabasePool,
  type PrismaService,
} from '../../../persistence/src/index.js';
import { PURGE_BATCH_SIZE, PURGE_MAX_BATCHES, PurgeExpiredRecords } from './purge-expired-records.use-case.js';

/** A table of `rows` expired rows that records the batch sizes and cutoffs asked for. */
function table(rows: number) {
  const limits: number[] = [];
  const cutoffs: Date[] = [];
  const purge = async (cutoff: Date, limit: number) => {
    limits.push(limit);
    cutoffs.push(cutoff);
    const deleted = Math.min(rows, limit);
    rows -= deleted;
    return deleted;
  };
  // Real repositories (never connected: only the purge is reached) whose purge is the table's.
  const prisma = {} as PrismaService;
  const db = {} as DatabasePool;
  return {
    limits,
    cutoffs,
    keys: Object.assign(new IdempotencyKeysRepository(prisma, db), { purgeExpired: purge }),
    codes: Object.assign(new LaunchCodesRepository(prisma, db), { purgeExpired: purge }),
    calls: Object.assign(new FinishedToolCallsRepository(db), { purgeFinishedBefore: purge }),
  };
}

describe('PurgeExpiredRecords', () => {
  it('deletes in batches until one comes back short, and never more than PURGE_MAX_BATCHES per run', async () => {
    const keys = table(PURGE_BATCH_SIZE * 2 + 7);
    const codes = table(PURGE_BATCH_SIZE * (PURGE_MAX_BATCHES + 3));
    const calls = table(3);
    const purge = new PurgeExpiredRecords({ CALL_RETENTION_DAYS: 30 }, keys.keys, codes.codes, calls.calls);
    expect(await purge.execute()).toEqual({
      idempotencyKeys: PURGE_BATCH_SIZE * 2 + 7,
      launchCodes: PURGE_BATCH_SIZE * PURGE_MAX_BATCHES,
      toolCalls: 3,
    });
    expect(keys.limits).toEqual([PURGE_BATCH_SIZE, PURGE_BATCH_SIZE, PURGE_BATCH_SIZE]);
    expect(codes.limits).toHaveLength(PURGE_MAX_BATCHES);
    expect(await purge.execute()).toEqual({ idempotencyKeys: 0, launchCodes: PURGE_BATCH_SIZE * 3, toolCalls: 0 });
  });

  it('prunes tool calls that finished more than CALL_RETENTION_DAYS before now', async () => {
    const calls = table(0);
    const none = table(0);
    const purge = new PurgeExpiredRecords({ CALL_RETENTION_DAYS: 7 }, none.keys, none.codes, calls.calls);
    await purge.execute(new Date('2026-12-08T12:00:00Z'));
    expect(calls.cutoffs).toEqual([new Date('2026-12-01T12:00:00Z')]);
  });
});
