import { Injectable } from '@nestjs/common';
import { DatabasePool, isDataError, utc } from './database-pool.js';
import {
  ACTIVE_STATUSES,
  type AttemptOutcome,
  type CallStatus,
  type NewToolCall,
  TERMINAL_STATUSES,
  type ToolCall,
  type ToolCallAttempt,
} from './call-states.js';
import { Prisma } from './generated/client.js';
import { type Page, type PageRequest, toPage } from './page.js';
import { PrismaService, isUniqueViolation } from './prisma.service.js';
import {
  OVERDUE_CALL_COLUMNS,
  type OverdueCall,
  TARGET_APP_COLUMNS,
  TARGET_INSTANCE_COLUMNS,
  TOOL_CALL_COLUMNS,
  type TargetApp,
  type TargetInstance,
  pick,
  selectList,
} from './sql-columns.js';
import { storableJsonText, storableText } from './storable.js';
import {
  TOOL_CALL_STATEMENTS as SQL,
  finishedCallValues,
  newToolCallRow,
  newToolCallValues,
} from './tool-calls.statements.js';
import { ToolCallWrites } from './tool-call-writes.js';

/**
 * Up to $3 active calls after id $4 (or from the first) queued past $2 or in progress past their deadline ($1), on
 * the two partial indexes of those states; only the columns of their jobs (a backlog is read every run).
 */
const OVERDUE = {
  name: 'tool_calls_overdue',
  text: `SELECT ${selectList(OVERDUE_CALL_COLUMNS)} FROM tool_calls
    WHERE ($4::text IS NULL OR id > $4::text)
      AND ((status = 'queued' AND next_attempt_at < $2::timestamp(3))
        OR (status = 'in_progress' AND attempt_deadline < $1::timestamp(3)))
    ORDER BY id LIMIT $3::int`,
};

export type ToolCallWithAttempts = ToolCall & { attempts: ToolCallAttempt[] };

/**
 * How long an instant call's attempt may run before the call is written in progress (`createInstant`): one that
 * ends sooner is written once, with its attempt.
 */
export const WRITE_RUNNING_CALL_AFTER_MS = 100;

/** An instant call whose attempt is being made: not written yet, or being written in progress. */
interface UnwrittenCall {
  call: NewToolCall;
  row: ToolCall;
  timer?: NodeJS.Timeout;
  /** The write of the call in progress, once its attempt ran WRITE_RUNNING_CALL_AFTER_MS. */
  written?: Promise<void>;
  /** Forgets the call by its deadline, once it is being written, should its record never come. */
  forget?: NodeJS.Timeout;
}

/** The row of one attempt, as recorded. */
export interface AttemptRecord {
  startedAt: Date;
  durationMs: number;
  outcome: AttemptOutcome;
  httpStatus: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/** Where a call moves after an attempt: every field set (null where it does not apply). */
export interface CallTransition {
  status: CallStatus;
  nextAttemptN: number | null;
  nextAttemptAt: Date | null;
  firstAttemptAt: Date;
  result: unknown;
  resultText: string | null;
  error: unknown;
  finishedAt: Date | null;
}

/** A call with what its next attempt checks and needs of what it calls, as it is now (null or false where gone). */
export interface CallTarget {
  call: ToolCall;
  app: TargetApp | null;
  installationExists: boolean;
  instance: TargetInstance | null;
  httpToolExists: boolean;
}

export interface ToolCallFilters {
  status?: CallStatus;
  toolName?: string;
  agentId?: string;
}

/** Tool calls: Postgres is the source of truth for each call's status and next attempt. */
@Injectable()
export class ToolCallsRepository {
  /** The hot path's writes, batched when calls arrive together. */
  private readonly writes: ToolCallWrites;
  /** Instant calls whose attempt is being made, by id, until it is recorded (`createInstant`). */
  private readonly unwritten = new Map<string, UnwrittenCall>();

  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DatabasePool,
  ) {
    this.writes = new ToolCallWrites(db);
  }

  async create(call: NewToolCall): Promise<ToolCall> {
    const row = newToolCallRow(call, new Date());
    await this.writes.create(newToolCallValues(call, row));
    return row;
  }

  /**
   * An instant call (stored in progress: its one attempt is made now) in one write instead of two while Postgres
   * answers: it is written with its attempt when `recordAttempt` records it, or in progress should the attempt run
   * WRITE_RUNNING_CALL_AFTER_MS (so a long attempt is seen, and a crash during it leaves the call to the reconciler).
   * When no hot write succeeded within the last second, or one failed since (Postgres away, a table gone), the call
   * is written first, as `create` does: a Postgres that does not take the call refuses it before anything is sent.
   */
  async createInstant(call: NewToolCall): Promise<ToolCall> {
    if (!this.writes.answeredRecently()) return this.create(call);
    const row = newToolCallRow(call, new Date());
    const unwritten: UnwrittenCall = { call, row };
    unwritten.timer = setTimeout(() => {
      unwritten.written = this.writes.create(newToolCallValues(call, row));
      unwritten.written.catch(() => undefined); // its attempt's record writes the call then
      // Should its record never come (the reconciler ends the call then).
      unwritten.forget = setTimeout(() => this.unwritten.delete(row.id), msUntil(row.attemptDeadline));
      unwritten.forget.unref();
    }, WRITE_RUNNING_CALL_AFTER_MS);
    unwritten.timer.unref();
    this.unwritten.set(row.id, unwritten);
    return row;
  }

  async getById(callId: string): Promise<ToolCall | null> {
    const [call] = await this.db.rows<ToolCall>(SQL.getById, [callId]);
    return call ?? null;
  }

  async getForAgent(projectId: string, agentId: string, callId: string): Promise<ToolCall | null> {
    const [call] = await this.db.rows<ToolCall>(SQL.getForAgent, [callId, projectId, agentId]);
    return call ?? null;
  }

  async getForApp(developerId: string, appId: string, callId: string): Promise<ToolCallWithAttempts | null> {
    const call = await this.prisma.toolCall.findFirst({
      where: { id: callId, appId, app: { developerId } },
      include: { attempts: { orderBy: [{ round: 'asc' }, { n: 'asc' }] } },
    });
    return call as ToolCallWithAttempts | null; // the CHECK constraints hold the states to their unions
  }

  /** Newest first. */
  async listForApp(
    developerId: string,
    appId: string,
    filters: ToolCallFilters,
    page: PageRequest,
  ): Promise<Page<ToolCall>> {
    const rows = await this.prisma.toolCall.findMany({
      where: {
        appId,
        app: { developerId },
        ...(filters.status ? { status: filters.status } : {}),
        ...(filters.toolName ? { toolName: filters.toolName } : {}),
        ...(filters.agentId ? { agentId: filters.agentId } : {}),
        ...(page.after ? { id: { lt: page.after } } : {}),
      },
      orderBy: { id: 'desc' },
      take: page.limit + 1,
    });
    return toPage(rows as ToolCall[], page.limit); // the CHECK constraints hold the states to their unions
  }

  /**
   * Takes attempt `n` of the call's current round: only if it is the attempt due and no live attempt
   * holds the call (a stale, duplicate or retried job finds nothing); an in-progress call is taken again
   * only past its attempt deadline (a crash). It takes the tool's current handler URL and timeout (the
   * deadline is that timeout plus `marginMs`) and reads, in the same statement, what the attempt checks
   * of the app, installation, instance and tool as they are now.
   */
  async claimForDelivery(
    callId: string,
    round: number,
    n: number,
    marginMs: number,
    now = new Date(),
  ): Promise<CallTarget | null> {
    const row = await this.writes.claim([callId, round, n, marginMs, utc(now)]);
    return row ? callTarget(row) : null;
  }

  /** The call with what its next attempt would check of its app, installation, instance and tool; null when gone. */
  async currentTarget(callId: string): Promise<CallTarget | null> {
    const [row] = await this.db.rows<Record<string, unknown>>(SQL.currentTarget, [callId]);
    return row ? callTarget(row) : null;
  }

  async storeBody(callId: string, bodyEnc: string): Promise<void> {
    const stored = await this.db.rows(SQL.storeBody, [callId, bodyEnc, utc(new Date())]);
    if (stored.length === 0) throw new Error(`call ${callId} is gone: its body was not stored`);
  }

  /**
   * Records an attempt and moves the call on, in one statement (hot path: one round trip); a call
   * cancelled meanwhile stays cancelled. False when the call was no longer in progress. Text Postgres
   * cannot hold is stored without the bytes it refuses; should the row still be refused, a minimal
   * record is stored instead of throwing (a throw would retry the job, and an attempt is made once).
   */
  async recordAttempt(
    callId: string,
    round: number,
    n: number,
    attempt: AttemptRecord,
    transition: CallTransition,
    attemptId: string,
  ): Promise<boolean> {
    const unwritten = this.takeUnwritten(callId);
    // Written in progress already (its write succeeded), or still to write with its attempt: the attempt was made.
    const withCall = unwritten && !(await wasWritten(unwritten)) ? unwritten : undefined;
    try {
      return await this.writeAttempt(callId, round, n, attempt, transition, attemptId, withCall);
    } catch (error) {
      if (!isDataError(error)) throw error;
      const note = 'the details could not be recorded';
      const kind = (transition.error as { kind?: unknown } | null)?.kind;
      const minimal: CallTransition = {
        ...transition,
        result: null,
        resultText: transition.status === 'succeeded' ? `[${note}]` : null,
        error: transition.error
          ? { kind: typeof kind === 'string' ? storableText(kind) : 'unknown', message: note }
          : null,
      };
      const minimalAttempt = { ...attempt, error: attempt.error === null ? null : note, responseExcerpt: null };
      return this.writeAttempt(callId, round, n, minimalAttempt, minimal, attemptId, withCall);
    }
  }

  /** The instant call of `callId` not written yet or being written, no longer waiting for its timer. */
  private takeUnwritten(callId: string): UnwrittenCall | undefined {
    const unwritten = this.unwritten.get(callId);
    if (!unwritten) return undefined;
    this.unwritten.delete(callId);
    clearTimeout(unwritten.timer);
    clearTimeout(unwritten.forget);
    return unwritten;
  }

  /** Records the attempt and the call's move; with the call's row too when it is `unwritten` (always moved then). */
  private async writeAttempt(
    callId: string,
    round: number,
    n: number,
    attempt: AttemptRecord,
    transition: CallTransition,
    attemptId: string,
    unwritten?: UnwrittenCall,
  ): Promise<boolean> {
    const text = (value: string | null) => (value === null ? null : storableText(value));
    const record = [
      attemptId,
      callId,
      round,
      n,
      utc(attempt.startedAt),
      attempt.durationMs,
      attempt.outcome,
      attempt.httpStatus,
      text(attempt.error),
      text(attempt.responseExcerpt),
      transition.status,
      transition.nextAttemptN,
      utc(transition.nextAttemptAt),
      utc(transition.firstAttemptAt),
      storableJsonText(transition.result),
      text(transition.resultText),
      storableJsonText(transition.error),
      utc(transition.finishedAt),
      utc(new Date()),
    ];
    if (!unwritten) return this.writes.record(record);
    try {
      await this.writes.createWithAttempt(finishedCallValues(unwritten.call, unwritten.row, record));
      return true;
    } catch (error) {
      // Its write in progress failed, yet landed (an answer lost after the commit): recorded as any other.
      if (isUniqueViolation(error)) return this.writes.record(record);
      // Its app was deleted during the attempt: the call went with it, as its row would have.
      if ((error as { code?: unknown } | null)?.code === FOREIGN_KEY_VIOLATION) return false;
      throw error;
    }
  }

  /** Stops further attempts of an active call; false when it is already finished. */
  async cancel(callId: string, error: Prisma.InputJsonValue, now: Date): Promise<boolean> {
    const { count } = await this.prisma.toolCall.updateMany({
      where: { id: callId, status: { in: [...ACTIVE_STATUSES] } },
      data: {
        status: 'cancelled',
        error,
        finishedAt: now,
        nextAttemptAt: null,
        nextAttemptN: null,
        attemptDeadline: null,
      },
    });
    return count > 0;
  }

  /** Starts a new round of a finished call's schedule (same event and body). */
  async startNewRound(callId: string, now: Date): Promise<ToolCall | null> {
    const { count } = await this.prisma.toolCall.updateMany({
      where: { id: callId, status: { in: [...TERMINAL_STATUSES] } },
      data: {
        status: 'queued',
        round: { increment: 1 },
        nextAttemptN: 1,
        nextAttemptAt: now,
        firstAttemptAt: null,
        attemptDeadline: null,
        result: Prisma.DbNull,
        resultText: null,
        error: Prisma.DbNull,
        finishedAt: null,
      },
    });
    if (count === 0) return null;
    return this.getById(callId);
  }

  /**
   * Active calls whose attempt is overdue (Redis lost the job), or whose attempt outlived its
   * deadline (a crash): `limit` of them in id order after `after`, so that a caller can page through
   * every one of them, however many a single app has.
   */
  async findOverdue(now: Date, graceMs: number, limit: number, after: string | null = null): Promise<OverdueCall[]> {
    // On the pool, not Prisma: the worker runs this every RECONCILE_INTERVAL_MS, and an idle worker loads no query engine.
    return this.db.rows<OverdueCall>(OVERDUE, [utc(now), utc(new Date(now.getTime() - graceMs)), limit, after]);
  }

  /** Ends an instant call the API process never finished (it died before or during its one attempt). */
  async failStuck(callId: string, error: Prisma.InputJsonValue, now: Date, graceMs: number): Promise<boolean> {
    const { count } = await this.prisma.toolCall.updateMany({
      where: {
        id: callId,
        OR: [
          { status: 'in_progress', attemptDeadline: { lt: now } },
          { status: 'queued', nextAttemptAt: { lt: new Date(now.getTime() - graceMs) } },
        ],
      },
      data: {
        status: 'failed',
        error,
        finishedAt: now,
        nextAttemptAt: null,
        nextAttemptN: null,
        attemptDeadline: null,
      },
    });
    return count > 0;
  }
}

const FOREIGN_KEY_VIOLATION = '23503';

/** Whether an unwritten call's write in progress succeeded (false: it never started, or it failed). */
async function wasWritten(unwritten: UnwrittenCall): Promise<boolean> {
  if (!unwritten.written) return false;
  return unwritten.written.then(
    () => true,
    () => false,
  );
}

/** Milliseconds from now until `when` (none when it is past or unset). */
function msUntil(when: Date | null): number {
  return when ? Math.max(0, when.getTime() - Date.now()) : 0;
}

function callTarget(row: Record<string, unknown>): CallTarget {
  return {
    call: pick(row, TOOL_CALL_COLUMNS, ''),
    app: row['a.id'] === null ? null : pick(row, TARGET_APP_COLUMNS, 'a.'),
    installationExists: row['n.id'] !== null,
    instance: row['i.id'] === null ? null : pick(row, TARGET_INSTANCE_COLUMNS, 'i.'),
    httpToolExists: row.httpToolExists === true,
  };
}
