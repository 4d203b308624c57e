import { Injectable } from '@nestjs/common';
import { IdempotencyKeysRepository, LaunchCodesRepository } from '../../../persistence/src/index.js';

/** Rows deleted per statement: short transactions that never hold many locks. */
export const PURGE_BATCH_SIZE = 500;
/** Batches per table and run: a large backlog is worked off over several runs. */
export const PURGE_MAX_BATCHES = 20;

/** Deletes what has expired and can never be used again: idempotency keys past 24 h (or their lease), launch codes. */
@Injectable()
export class PurgeExpiredRecords {
  constructor(
    private readonly idempotencyKeys: IdempotencyKeysRepository,
    private readonly launchCodes: LaunchCodesRepository,
  ) {}

  async execute(now = new Date()): Promise<{ idempotencyKeys: number; launchCodes: number }> {
    return {
      idempotencyKeys: await inBatches((limit) => this.idempotencyKeys.purgeExpired(now, limit)),
      launchCodes: await inBatches((limit) => this.launchCodes.purgeExpired(now, limit)),
    };
  }
}

async function inBatches(purge: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < PURGE_MAX_BATCHES; batch += 1) {
    const deleted = await purge(PURGE_BATCH_SIZE);
    total += deleted;
    if (deleted < PURGE_BATCH_SIZE) break;
  }
  return total;
}
