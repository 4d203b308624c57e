import { describe, expect, it } from 'vitest';
import type { IdempotencyKeysRepository, LaunchCodesRepository } from '../../../persistence/src/index.js';
import { PURGE_BATCH_SIZE, PURGE_MAX_BATCHES, PurgeExpiredRecords } from './purge-expired-records.use-case.js';

/** A table of `rows` expired rows that records the batch sizes asked for. */
function table(rows: number) {
  const limits: number[] = [];
  return {
    limits,
    repository: {
      async purgeExpired(_now: Date, limit: number) {
        limits.push(limit);
        const deleted = Math.min(rows, limit);
        rows -= deleted;
        return deleted;
      },
    },
  };
}

describe('PurgeExpiredRecords', () => {
  it('deletes in batches until one comes back short, and never more than PURGE_MAX_BATCHES per run', async () => {
    const keys = table(PURGE_BATCH_SIZE * 2 + 7);
    const codes = table(PURGE_BATCH_SIZE * (PURGE_MAX_BATCHES + 3));
    const purge = new PurgeExpiredRecords(
      keys.repository as unknown as IdempotencyKeysRepository,
      codes.repository as unknown as LaunchCodesRepository,
    );
    expect(await purge.execute()).toEqual({ idempotencyKeys: PURGE_BATCH_SIZE * 2 + 7, launchCodes: PURGE_BATCH_SIZE * PURGE_MAX_BATCHES });
    expect(keys.limits).toEqual([PURGE_BATCH_SIZE, PURGE_BATCH_SIZE, PURGE_BATCH_SIZE]);
    expect(codes.limits).toHaveLength(PURGE_MAX_BATCHES);
    expect(await purge.execute()).toEqual({ idempotencyKeys: 0, launchCodes: PURGE_BATCH_SIZE * 3 });
  });
});
