import { Injectable } from '@nestjs/common';
import type { CallStatus, ToolCall, ToolCallAttempt } from './call-states.js';
import { DATABASE_TIMEOUTS, DatabasePool, isDataError, utc } from './database-pool.js';
import { DatabaseBusyError, isDatabaseUnavailable } from './database-unavailable.js';
import { type Page, type PageRequest, toPage } from './page.js';
import { PrismaService } from './prisma.service.js';
import {
  type OverdueCall,
  TARGET_APP_COLUMNS,
  TARGET_INSTANCE_COLUMNS,
  TOOL_CALL_COLUMNS,
  type TargetApp,
  type TargetInstance,
  pick,
} from './sql-columns.js';
import { type InputColumn, inputValues } from './sql-input.js';
import type { Statement } from './database-pool.js';
import { type BatchOptions, StatementBatcher } from './statement-batcher.js';
import { storableText } from './storable.js';
import {
  type AttemptRecord,
  type CallTransition,
  type ClaimInput,
  LEDGER_SQL as SQL,
  type NewToolCall,
  type RecordInput,
  claimAttempts,
  createCalls,
  recordAttempts,
  recordQueuedAttempts,
} from './tool-call-ledger.sql.js';

export type { AttemptRecord, CallTransition, NewToolCall } from './tool-call-ledger.sql.js';

export type ToolCallWithAttempts = ToolCall & { attempts: ToolCallAttempt[] };

/** A call as a write left it: a queued call's end may have stored its tool_call.finished event (its id, else null). */
export type MovedCall = ToolCall & { endEventId?: string | null };

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
  /** The name the agent called the tool by. */
  agentToolName?: string;
  dialogId?: string;
}

/**
 * The ledger of tool calls: Postgres is the source of truth for each call's status and next attempt, and every
 * write of a call goes through here, as SQL of tool-call-ledger.sql.ts. A call is stored (`create`) before anything
 * is sent for it; an attempt is taken (`claim`) before it is made, and recorded (`record`) with the call's move in
 * one statement. Each of these three is one statement per batch of calls that arrive together (a caller sees only
 * its own call); every write answers with the call as stored.
 */
@Injectable()
export class ToolCallLedger {
  private readonly creates: StatementBatcher<NewToolCall, ToolCall | null>;
  private readonly claims: StatementBatcher<ClaimInput, CallTarget | null>;
  /** Records of instant calls: they arrive with the requests that make them, together. */
  private readonly instantRecords: StatementBatcher<RecordInput, ToolCall | null>;
  /** Records of queued calls' attempts: they arrive spread out, each as its attempt ends. */
  private readonly queuedRecords: StatementBatcher<RecordInput, MovedCall | null>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DatabasePool,
  ) {
    const asCall = (row: ToolCall) => row;
    this.creates = batchedStatement(db, createCalls, (call) => call.id, HOT_WRITES, asCall);
    this.claims = batchedStatement(db, claimAttempts, (claim) => claim.callId, SPREAD_OUT, callTarget);
    const recordKey = (record: RecordInput) => record.attempt.callId;
    this.instantRecords = batchedStatement(db, recordAttempts, recordKey, HOT_WRITES, asCall);
    this.queuedRecords = batchedStatement(db, recordQueuedAttempts, recordKey, SPREAD_OUT, asCall);
  }

  /** Stores a new call; it is on record once this resolves. */
  async create(call: NewToolCall): Promise<ToolCall> {
    const stored = await this.creates.run(call);
    if (!stored) throw new Error(`call ${call.id} was not stored`);
    return stored;
  }

  /**
   * Takes attempt `n` of the call's current round: only if it is the attempt due and no live attempt holds the
   * call (a stale, duplicate or retried job finds nothing); an in-progress call is taken again only past its attempt
   * deadline (a crash). It takes the tool's current handler URL and timeout (the deadline is that timeout plus
   * `marginMs`) and reads, in the same statement, what the attempt checks of the app, installation, instance and
   * tool as they are now.
   */
  claim(claim: Omit<ClaimInput, 'now'>, now = new Date()): Promise<CallTarget | null> {
    return this.claims.run({ ...claim, now });
  }

  /**
   * Records an attempt and moves the call on, in one statement; answers the call as moved, or null when it was no
   * longer in progress in that round (cancelled meanwhile: it stays so) or is gone (its app was deleted). Text
   * Postgres cannot hold is stored without the bytes it refuses; should the row still be refused, a minimal record
   * is stored instead of throwing (a throw would retry the job, and an attempt is made once).
   */
  async record(
    attempt: AttemptRecord,
    move: CallTransition,
    call: Pick<ToolCall, 'executionMode'>,
    at = new Date(),
  ): Promise<MovedCall | null> {
    const records = call.executionMode === 'instant' ? this.instantRecords : this.queuedRecords;
    try {
      return await this.recordOrGone(records, { attempt, move, at });
    } catch (error) {
      if (!isDataError(error)) throw error;
      const note = 'the details could not be recorded';
      const kind = (move.error as { kind?: unknown } | null)?.kind;
      const minimal: CallTransition = {
        ...move,
        result: null,
        resultText: move.status === 'succeeded' ? `[${note}]` : null,
        error: move.error ? { kind: typeof kind === 'string' ? storableText(kind) : 'unknown', message: note } : null,
      };
      const minimalAttempt = { ...attempt, error: attempt.error === null ? null : note, responseExcerpt: null };
      return this.recordOrGone(records, { attempt: minimalAttempt, move: minimal, at });
    }
  }

  private async recordOrGone(
    records: StatementBatcher<RecordInput, MovedCall | null>,
    record: RecordInput,
  ): Promise<MovedCall | null> {
    try {
      return await records.run(record);
    } catch (error) {
      // The call went with its app, deleted during the attempt: there is nothing left to record it on.
      if ((error as { code?: unknown } | null)?.code === FOREIGN_KEY_VIOLATION) return null;
      throw error;
    }
  }

  /** Ends an active call cancelled, with `error` (and its event, as a record does); null when it had finished already. */
  async cancel(callId: string, error: { kind: string; message: string }, now: Date): Promise<MovedCall | null> {
    const [call] = await this.db.rows<MovedCall>(SQL.cancel, [callId, JSON.stringify(error), utc(now)]);
    return call ?? null;
  }

  /** Starts a new round of a finished call's schedule (same event and body), due now; null when it is active. */
  async startNewRound(callId: string, now: Date): Promise<ToolCall | null> {
    const [call] = await this.db.rows<ToolCall>(SQL.startNewRound, [callId, utc(now)]);
    return call ?? null;
  }

  /** Ends an instant call the API process never finished (it died before or during its one attempt). */
  async failStuck(callId: string, error: { kind: string; message: string }, now: Date, graceMs: number) {
    const graceStart = new Date(now.getTime() - graceMs);
    const values = [callId, JSON.stringify(error), utc(now), utc(graceStart)];
    return (await this.db.rows(SQL.failStuck, values)).length > 0;
  }

  /**
   * Active calls whose attempt is overdue (Redis lost the job), or whose attempt outlived its deadline (a crash):
   * `limit` of them in id order after `after`, so that a caller can page through every one of them.
   */
  async findOverdue(now: Date, graceMs: number, limit: number, after: string | null = null): Promise<OverdueCall[]> {
    return this.db.rows<OverdueCall>(SQL.overdue, [utc(now), utc(new Date(now.getTime() - graceMs)), limit, after]);
  }

  async getById(callId: string): Promise<ToolCall | null> {
    const [call] = await this.db.rows<ToolCall>(SQL.getById, [callId]);
    return call ?? null;
  }

  async getForAgent(projectId: string, agentId: string, callId: string): Promise<ToolCall | null> {
    const [call] = await this.db.rows<ToolCall>(SQL.getForAgent, [callId, projectId, agentId]);
    return call ?? null;
  }

  /** The call with what its next attempt would check of its app, installation, instance and tool; null when gone. */
  async currentTarget(callId: string): Promise<CallTarget | null> {
    const [row] = await this.db.rows<Record<string, unknown>>(SQL.currentTarget, [callId]);
    return row ? callTarget(row) : null;
  }

  async getForApp(developerId: string, appId: string, callId: string): Promise<ToolCallWithAttempts | null> {
    const call = await this.prisma.toolCall.findFirst({
      where: { id: callId, appId, app: { developerId } },
      include: { attempts: { orderBy: [{ round: 'asc' }, { n: 'asc' }] } },
    });
    return call as ToolCallWithAttempts | null; // the CHECK constraints hold the states to their unions
  }

  /** A call of the project's agents with its attempts; null when it is another project's or unknown. */
  async getForProject(projectId: string, callId: string): Promise<ToolCallWithAttempts | null> {
    const call = await this.prisma.toolCall.findFirst({
      where: { id: callId, projectId, test: false }, // a developer's test call is no project's
      include: { attempts: { orderBy: [{ round: 'asc' }, { n: 'asc' }] } },
    });
    return call as ToolCallWithAttempts | null; // the CHECK constraints hold the states to their unions
  }

  /** The calls of the project's agents, newest first (index tool_calls_project_id_id_idx). */
  async listForProject(projectId: string, filters: ToolCallFilters, page: PageRequest): Promise<Page<ToolCall>> {
    const rows = await this.prisma.toolCall.findMany({
      where: { projectId, test: false, ...filterWhere(filters), ...(page.after ? { id: { lt: page.after } } : {}) },
      orderBy: { id: 'desc' },
      take: page.limit + 1,
    });
    return toPage(rows as ToolCall[], page.limit); // the CHECK constraints hold the states to their unions
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
        ...filterWhere(filters),
        ...(page.after ? { id: { lt: page.after } } : {}),
      },
      orderBy: { id: 'desc' },
      take: page.limit + 1,
    });
    return toPage(rows as ToolCall[], page.limit); // the CHECK constraints hold the states to their unions
  }
}

const FOREIGN_KEY_VIOLATION = '23503';

function filterWhere(filters: ToolCallFilters) {
  return {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.toolName ? { toolName: filters.toolName } : {}),
    ...(filters.agentId ? { agentId: filters.agentId } : {}),
    ...(filters.agentToolName ? { agentToolName: filters.agentToolName } : {}),
    ...(filters.dialogId ? { dialogId: filters.dialogId } : {}),
  };
}

/**
 * How the hot path's writes are batched: two statements of a kind at once, each carrying what arrived meanwhile
 * (up to 25 calls); Postgres CPU per queued call 0.76 → 0.37 ms when this was measured (docs/decisions). An item
 * waits for a statement no longer than a request waits for a connection of the pool, and not at all once a
 * statement found Postgres away.
 */
const HOT_WRITES = {
  maxInFlight: 2,
  maxBatch: 25,
  maxWaitMs: DATABASE_TIMEOUTS.connectMs,
  waitedTooLong: () => new DatabaseBusyError(`no statement for this write within ${DATABASE_TIMEOUTS.connectMs} ms`),
  retryAlone: worthRetryingAlone,
  failsAll: postgresAway,
} satisfies Omit<BatchOptions<unknown>, 'key'>;

/**
 * A queued call's claims and records arrive spread out (each as its attempt gets there), so a second statement beside
 * a running one would mostly carry one item: it starts for a full batch, or once the oldest item has waited 20 ms
 * (row 3 of the bench: Postgres CPU per call 0.47–0.50 → 0.39–0.40 ms). An instant call's writes arrive with the
 * requests, together, and a second statement starts at once.
 */
const SPREAD_OUT = { ...HOT_WRITES, another: { waiting: 25, afterMs: 20 } };

/**
 * A statement of the ledger run for each batch of items that arrive together: its rows are matched to the items by
 * call id (`key`), each read by `output` (null for an item the statement left alone). The items go in call id
 * order, so that concurrent statements lock the rows they share in one order, and cannot deadlock on them.
 */
function batchedStatement<I, R, O>(
  db: DatabasePool,
  sql: { input: readonly InputColumn<I>[]; statement: (size: number) => Statement },
  key: (item: I) => string,
  options: Omit<BatchOptions<I>, 'key'>,
  output: (row: R) => O,
): StatementBatcher<I, O | null> {
  const runBatch = async (items: I[]): Promise<(O | null)[]> => {
    const ordered = items.length === 1 ? items : [...items].sort((a, b) => compare(key(a), key(b)));
    const rows = await db.rows<R & { id: string }>(sql.statement(items.length), inputValues(sql.input, ordered));
    if (items.length === 1) return [rows[0] ? output(rows[0]) : null];
    const byId = new Map(rows.map((row) => [row.id, row]));
    return items.map((item) => {
      const row = byId.get(key(item));
      return row ? output(row) : null;
    });
  };
  return new StatementBatcher<I, O | null>({ ...options, key }, async (item) => (await runBatch([item]))[0], runBatch);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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

/**
 * A batch's failure that running its items alone may avoid, as Postgres answered it (nothing of the batch was
 * written): refused values (SQLSTATE 22, 54), a row a constraint refused (23) or met twice (21), or a
 * transaction it rolled back (40: a deadlock, a serialization failure). Each item then runs alone.
 */
export function worthRetryingAlone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(21|22|23|40|54)[0-9A-Z]{3}$/.test(code);
}

/**
 * Postgres could not be reached or did not answer (isDatabaseUnavailable): the writes waiting behind would meet
 * the same. Not a statement cancelled by its own timeout (57014), which a lock on one row can cause.
 */
export function postgresAway(error: unknown): boolean {
  return isDatabaseUnavailable(error) && (error as { code?: unknown } | null)?.code !== '57014';
}
