import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import {
  FinishedToolCallsRepository,
  IdempotencyKeysRepository,
  LaunchCodesRepository,
} from '../../../persistence/src/index.js';

/** Rows deleted per statement: short transactions that never hold many locks. */
export const PURGE_BATCH_SIZE = 500;
/** Batches per table and run: a large backlog is worked off over several runs. */
export const PURGE_MAX_BATCHES = 20;
/** Pause between two batches: delivery's statements get the database in between. */
export const PURGE_PAUSE_MS = 20;

const DAY_MS = 86_400_000;

export interface PurgedCounts {
  idempotencyKeys: number;
  launchCodes: number;
  toolCalls: number;
}

/**
 * Deletes what has expired and can never be used again: idempotency keys past 24 h (or their lease),
 * launch codes, and finished tool calls (with their attempts) older than CALL_RETENTION_DAYS.
 */
@Injectable()
export class PurgeExpiredRecords {
  constructor(
    @Inject(ENV) private readonly env: Pick<Env, 'CALL_RETENTION_DAYS'>,
    private readonly idempotencyKeys: IdempotencyKeysRepository,
    private readonly launchCodes: LaunchCodesRepository,
    private readonly finishedToolCalls: FinishedToolCallsRepository,
  ) {}

  async execute(now = new Date()): Promise<PurgedCounts> {
    const callCutoff = new Date(now.getTime() - this.env.CALL_RETENTION_DAYS * DAY_MS);
    return {
      idempotencyKeys: await inBatches((limit) => this.idempotencyKeys.purgeExpired(now, limit)),
      launchCodes: await inBatches((limit) => this.launchCodes.purgeExpired(now, limit)),
      toolCalls: await inBatches((limit) => this.finishedToolCalls.purgeFinishedBefore(callCutoff, limit)),
    };
  }
}

async function inBatches(purge: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < PURGE_MAX_BATCHES; batch += 1) {
    if (batch > 0) await new Promise((resolve) => setTimeout(resolve, PURGE_PAUSE_MS));
    const deleted = await purge(PURGE_BATCH_SIZE);
    total += deleted;
    if (deleted < PURGE_BATCH_SIZE) break;
  }
  return total;
}
