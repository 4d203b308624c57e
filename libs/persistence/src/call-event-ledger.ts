import { Injectable } from '@nestjs/common';
import type { RetiredWebhookSecret } from './apps.repository.js';
import { ACTIVE_STATUSES, type AttemptOutcome, type CallStatus } from './call-states.js';
import { DatabasePool, type Statement, utc } from './database-pool.js';
import type { CallEvent, CallEventAttempt } from './generated/client.js';
import { PrismaService } from './prisma.service.js';
import { sqlList } from './sql-input.js';
import { storableJsonText, storableText } from './storable.js';

/** A tool_call.finished event taken for an attempt, with its project's endpoint as it is now (null when deleted). */
export interface ClaimedCallEvent {
  id: string;
  callId: string;
  projectId: string;
  /** The event's `call` object, as stored when the call ended. */
  payload: Record<string, unknown>;
  n: number;
  firstAttemptAt: Date | null;
  endpoint: { url: string; secretEnc: string; retiredSecrets: RetiredWebhookSecret[] } | null;
}

/** An event whose attempt is overdue (Redis lost its job) or outlived its deadline (a crash). */
export interface OverdueCallEvent {
  id: string;
  projectId: string;
  nextAttemptN: number;
}

/** One attempt of an event, with where the event moves next. */
export interface CallEventRecord {
  attemptId: string;
  eventId: string;
  n: number;
  startedAt: Date;
  durationMs: number;
  outcome: AttemptOutcome;
  httpStatus: number | null;
  error: string | null;
  responseExcerpt: string | null;
  status: CallStatus;
  nextAttemptN: number | null;
  nextAttemptAt: Date | null;
  firstAttemptAt: Date;
  eventError: unknown;
  finishedAt: Date | null;
}

export type CallEventWithAttempts = CallEvent & { attempts: CallEventAttempt[] };

const ACTIVE = sqlList(ACTIVE_STATUSES);

const SQL = {
  /** $1 event id, $2 n, $3 now, $4 the attempt's deadline. */
  claim: {
    name: 'call_events_claim',
    text: `WITH claimed AS (
        UPDATE call_events SET status = 'in_progress', attempt_deadline = $4::timestamp(3), updated_at = $3::timestamp(3)
        WHERE id = $1 AND next_attempt_n = $2
          AND (status = 'queued' OR (status = 'in_progress' AND attempt_deadline < $3::timestamp(3)))
        RETURNING *
      ) SELECT c.id, c.call_id AS "callId", c.project_id AS "projectId", c.payload, c.next_attempt_n AS n,
        c.first_attempt_at AS "firstAttemptAt", e.url, e.secret_enc AS "secretEnc", e.retired_secrets AS "retiredSecrets"
      FROM claimed c LEFT JOIN event_endpoints e ON e.project_id = c.project_id`,
  },
  /** The attempt's row and the event's move (CallEventRecord, in order): only while that attempt holds the event. */
  record: {
    name: 'call_events_record',
    text: `WITH attempt AS (
        INSERT INTO call_event_attempts
          (id, event_id, n, started_at, duration_ms, outcome, http_status, error, response_excerpt)
        VALUES ($1, $2, $3, $4::timestamp(3), $5, $6, $7, $8, $9)
        ON CONFLICT (event_id, n) DO UPDATE SET started_at = EXCLUDED.started_at, duration_ms = EXCLUDED.duration_ms,
          outcome = EXCLUDED.outcome, http_status = EXCLUDED.http_status, error = EXCLUDED.error,
          response_excerpt = EXCLUDED.response_excerpt
      )
      UPDATE call_events SET status = $10, next_attempt_n = $11, next_attempt_at = $12::timestamp(3),
        first_attempt_at = $13::timestamp(3), attempt_deadline = NULL, error = $14::jsonb,
        finished_at = $15::timestamp(3), updated_at = now() AT TIME ZONE 'UTC'
      WHERE id = $2 AND status = 'in_progress' AND next_attempt_n = $3
      RETURNING id`,
  },
  /** $1 event id, $2 error (jsonb), $3 now: an active event ends cancelled, no attempt made. */
  cancel: {
    name: 'call_events_cancel',
    text: `UPDATE call_events SET status = 'cancelled', error = $2::jsonb, finished_at = $3::timestamp(3),
        next_attempt_n = NULL, next_attempt_at = NULL, attempt_deadline = NULL, updated_at = $3::timestamp(3)
      WHERE id = $1 AND status IN (${ACTIVE}) RETURNING id`,
  },
  /** $1 now, $2 now less the grace, $3 limit, $4 the id to page on from (or null); on the two partial indexes. */
  overdue: {
    name: 'call_events_overdue',
    text: `SELECT id, project_id AS "projectId", next_attempt_n AS "nextAttemptN" FROM call_events
      WHERE ($4::text IS NULL OR id > $4::text)
        AND ((status = 'queued' AND next_attempt_at < $2::timestamp(3))
          OR (status = 'in_progress' AND attempt_deadline < $1::timestamp(3)))
      ORDER BY id LIMIT $3::int`,
  },
} satisfies Record<string, Statement>;

/**
 * The ledger of tool_call.finished events, kept as the tool-call ledger keeps calls: an event is stored by the
 * statement that ends its call (ToolCallLedger's WITH_END_EVENTS), an attempt is claimed before it is made and
 * recorded with the event's move in one statement; Postgres is the truth, the queue only says when.
 */
@Injectable()
export class CallEventLedger {
  constructor(
    private readonly db: DatabasePool,
    private readonly prisma: PrismaService,
  ) {}

  /** Takes attempt `n` if it is due and no live attempt holds the event; null otherwise (a stale or repeated job). */
  async claim(eventId: string, n: number, now: Date, deadline: Date): Promise<ClaimedCallEvent | null> {
    const [row] = await this.db.rows<Record<string, unknown>>(SQL.claim, [eventId, n, utc(now), utc(deadline)]);
    if (!row) return null;
    const { url, secretEnc, retiredSecrets, ...event } = row;
    const endpoint =
      typeof url === 'string' && typeof secretEnc === 'string'
        ? { url, secretEnc, retiredSecrets: (retiredSecrets ?? []) as RetiredWebhookSecret[] }
        : null;
    return { ...(event as Omit<ClaimedCallEvent, 'endpoint'>), endpoint };
  }

  /** Records an attempt and moves the event on; false when the attempt no longer held it. */
  async record(r: CallEventRecord): Promise<boolean> {
    const text = (value: string | null) => (value === null ? null : storableText(value));
    const values = [
      r.attemptId,
      r.eventId,
      r.n,
      utc(r.startedAt),
      r.durationMs,
      r.outcome,
      r.httpStatus,
      text(r.error),
      text(r.responseExcerpt),
      r.status,
      r.nextAttemptN,
      utc(r.nextAttemptAt),
      utc(r.firstAttemptAt),
      storableJsonText(r.eventError),
      utc(r.finishedAt),
    ];
    return (await this.db.rows(SQL.record, values)).length > 0;
  }

  async cancel(eventId: string, error: { kind: string; message: string }, now: Date): Promise<boolean> {
    return (await this.db.rows(SQL.cancel, [eventId, JSON.stringify(error), utc(now)])).length > 0;
  }

  async findOverdue(now: Date, graceMs: number, limit: number, after: string | null): Promise<OverdueCallEvent[]> {
    return this.db.rows<OverdueCallEvent>(SQL.overdue, [
      utc(now),
      utc(new Date(now.getTime() - graceMs)),
      limit,
      after,
    ]);
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
