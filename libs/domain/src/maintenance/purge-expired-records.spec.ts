import { describe, expect, it } from 'vitest';
import type {
  FinishedToolCallsRepository,
  IdempotencyKeysRepository,
  LaunchCodesRepository,
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
  return { limits, cutoffs, repository: { purgeExpired: purge, purgeFinishedBefore: purge } };
}

describe('PurgeExpiredRecords', () => {
  it('deletes in batches until one comes back short, and never more than PURGE_MAX_BATCHES per run', async () => {
    const keys = table(PURGE_BATCH_SIZE * 2 + 7);
    const codes = table(PURGE_BATCH_SIZE * (PURGE_MAX_BATCHES + 3));
    const calls = table(3);
    const purge = new PurgeExpiredRecords(
      { CALL_RETENTION_DAYS: 30 },
      keys.repository as unknown as IdempotencyKeysRepository,
      codes.repository as unknown as LaunchCodesRepository,
      calls.repository as unknown as FinishedToolCallsRepository,
    );
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
    const none = table(0).repository;
    const purge = new PurgeExpiredRecords(
      { CALL_RETENTION_DAYS: 7 },
      none as unknown as IdempotencyKeysRepository,
      none as unknown as LaunchCodesRepository,
      calls.repository as unknown as FinishedToolCallsRepository,
    );
    await purge.execute(new Date('2026-12-08T12:00:00Z'));
    expect(calls.cutoffs).toEqual([new Date('2026-12-01T12:00:00Z')]);
  });
});
