import { Injectable } from '@nestjs/common';
import { TERMINAL_STATUSES } from './call-states.js';
import { DatabasePool, utc } from './database-pool.js';
import { sqlList } from './sql-input.js';

/**
 * Up to $2 calls that finished before $1, oldest first, by the partial index on finished_at. Rows another
 * transaction holds (a replay starting a new round) are skipped, and a row changed meanwhile is re-checked
 * after its lock, so an active call is never deleted.
 */
const TERMINAL = sqlList(TERMINAL_STATUSES);

const PURGE_FINISHED_BEFORE = {
  name: 'finished_tool_calls_purge',
  text: `DELETE FROM tool_calls WHERE id IN (
    SELECT id FROM tool_calls
    WHERE finished_at IS NOT NULL AND finished_at < $1::timestamp(3) AND status IN (${TERMINAL})
    ORDER BY finished_at
    LIMIT $2::int
    FOR UPDATE SKIP LOCKED
  )`,
};

/** Finished tool calls past their retention: deleted with their attempts (ON DELETE CASCADE). */
@Injectable()
export class FinishedToolCallsRepository {
  constructor(private readonly db: DatabasePool) {}

  /** Deletes up to `limit` calls that finished before `cutoff`; returns how many. */
  async purgeFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    return this.db.count(PURGE_FINISHED_BEFORE, [utc(cutoff), limit]);
  }
}
