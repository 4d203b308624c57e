import { Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service.js';

/** Finished tool calls past their retention: deleted with their attempts (ON DELETE CASCADE). */
@Injectable()
export class FinishedToolCallsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Deletes up to `limit` calls that finished before `cutoff`, oldest first, by the partial index on
   * finished_at. Rows another transaction holds (a replay starting a new round) are skipped, and a row
   * changed meanwhile is re-checked after its lock, so an active call is never deleted.
   */
  async purgeFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM tool_calls WHERE id IN (
        SELECT id FROM tool_calls
        WHERE finished_at IS NOT NULL AND finished_at < ${cutoff} AND status IN ('succeeded', 'failed', 'cancelled')
        ORDER BY finished_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )`;
  }
}
