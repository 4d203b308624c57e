import { Injectable } from '@nestjs/common';
import type { RetiredWebhookSecret } from './apps.repository.js';
import { DatabasePool, utc } from './database-pool.js';
import type { CallEvent, CallEventAttempt } from './generated/client.js';
import { PrismaService } from './prisma.service.js';
import { type EventAttemptRecord, type EventClaimInput, EVENT_SQL as SQL } from './call-event-ledger.sql.js';
import { CLAIMED_EVENT_COLUMNS, type ClaimedEventRow, type OverdueEventRow, pick } from './sql-columns.js';
import { inputValues } from './sql-input.js';

export type { EventAttemptRecord } from './call-event-ledger.sql.js';

/** A tool_call.finished event taken for an attempt, with its project's endpoint as it is now (null when deleted). */
export type ClaimedCallEvent = ClaimedEventRow & {
  endpoint: { url: string; secretEnc: string; retiredSecrets: RetiredWebhookSecret[] } | null;
};

/** An event whose attempt is overdue (Redis lost its job) or outlived its deadline (a crash). */
export type OverdueCallEvent = OverdueEventRow;

export type CallEventWithAttempts = CallEvent & { attempts: CallEventAttempt[] };

/**
 * The ledger of tool_call.finished events, kept as the tool-call ledger keeps calls: an event is stored by the
 * statement that ends its call (storeEndEvents), an attempt is claimed before it is made and recorded with the
 * event's move in one statement; Postgres is the truth, the queue only says when.
 */
@Injectable()
export class CallEventLedger {
  constructor(
    private readonly db: DatabasePool,
    private readonly prisma: PrismaService,
  ) {}

  /** Takes attempt `n` if it is due and no live attempt holds the event; null otherwise (a stale or repeated job). */
  async claim(claim: EventClaimInput): Promise<ClaimedCallEvent | null> {
    const [row] = await this.db.rows<Record<string, unknown>>(
      SQL.claim.statement,
      inputValues(SQL.claim.input, [claim]),
    );
    if (!row) return null;
    const { endpointUrl: url, endpointSecretEnc: secretEnc, endpointRetiredSecrets: retired } = row;
    const endpoint =
      typeof url === 'string' && typeof secretEnc === 'string'
        ? { url, secretEnc, retiredSecrets: (retired ?? []) as RetiredWebhookSecret[] }
        : null;
    return { ...pick(row, CLAIMED_EVENT_COLUMNS, ''), endpoint };
  }

  /** Records an attempt and moves the event on; false when the attempt no longer held it. */
  async record(record: EventAttemptRecord): Promise<boolean> {
    const rows = await this.db.rows(SQL.record.statement, inputValues(SQL.record.input, [record]));
    return rows.length > 0;
  }

  async cancel(eventId: string, error: { kind: string; message: string }, now: Date): Promise<boolean> {
    return (await this.db.rows(SQL.cancel, [eventId, JSON.stringify(error), utc(now)])).length > 0;
  }

  async findOverdue(now: Date, graceMs: number, limit: number, after: string | null): Promise<OverdueCallEvent[]> {
    const graceStart = new Date(now.getTime() - graceMs);
    return this.db.rows<OverdueCallEvent>(SQL.overdue, [utc(now), utc(graceStart), limit, after]);
  }

  /** The events of a call of the project, oldest first, with their attempts. */
  async listForCall(projectId: string, callId: string): Promise<CallEventWithAttempts[]> {
    return this.prisma.callEvent.findMany({
      where: { callId, projectId },
      orderBy: { round: 'asc' },
      include: { attempts: { orderBy: { n: 'asc' } } },
    });
  }
}
