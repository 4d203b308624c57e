import { DatabasePool, isRefusedValue } from './database-pool.js';
import { StatementBatcher } from './statement-batcher.js';
import { TOOL_CALL_STATEMENTS as SQL, claimCalls, createCalls, recordAttempts } from './tool-calls.statements.js';

/**
 * How the hot path's writes are batched: two statements of a kind at once, each carrying what arrived
 * meanwhile (up to 25). Measured here (bench/cpu-per-call.mjs): Postgres CPU per queued call 0.76 → 0.37 ms;
 * two statements at once did better than one, four or eight.
 */
const HOT_WRITES = { maxInFlight: 2, maxBatch: 25, retryAlone: worthRetryingAlone };

/**
 * The three writes of a call's hot path (accept, claim, record), each one statement per batch of calls
 * that arrive together (StatementBatcher). Each takes the values of its single statement in `SQL`.
 */
export class ToolCallWrites {
  private readonly creates: StatementBatcher<unknown[], void>;
  private readonly claims: StatementBatcher<unknown[], Record<string, unknown> | null>;
  private readonly records: StatementBatcher<unknown[], boolean>;

  constructor(db: DatabasePool) {
    const createOne = async (values: unknown[]) => {
      await db.count(SQL.create, values);
    };
    this.creates = new StatementBatcher(HOT_WRITES, createOne, async (batch) => {
      await db.count(createCalls(batch.length), batch.flat());
      return batch.map(() => undefined);
    });

    const claimOne = async (values: unknown[]) =>
      (await db.rows<Record<string, unknown>>(SQL.claimForDelivery, values))[0] ?? null;
    this.claims = new StatementBatcher(HOT_WRITES, claimOne, async (batch) => {
      const callIds = batch.map((values) => values[0]);
      // One statement updates a call once: two claims of one call go one by one.
      if (new Set(callIds).size < callIds.length) return Promise.all(batch.map(claimOne));
      const rows = await db.rows<Record<string, unknown>>(claimCalls(batch.length), inIdOrder(batch, 0));
      const byId = new Map(rows.map((row) => [row.id, row]));
      return callIds.map((id) => byId.get(id) ?? null);
    });

    const recordOne = async (values: unknown[]) => (await db.rows(SQL.recordAttempt, values)).length > 0;
    this.records = new StatementBatcher(HOT_WRITES, recordOne, async (batch) => {
      const callIds = batch.map((values) => values[1]);
      if (new Set(callIds).size < callIds.length) return Promise.all(batch.map(recordOne));
      const moved = await db.rows<{ id: string }>(recordAttempts(batch.length), inIdOrder(batch, 1));
      const movedIds = new Set(moved.map((row) => row.id));
      return callIds.map((id) => movedIds.has(id as string));
    });
  }

  /** Stores a new call: `create`'s values. */
  create(values: unknown[]): Promise<void> {
    return this.creates.run(values);
  }

  /** Claims an attempt: `claimForDelivery`'s values; the claimed call's target row, or null. */
  claim(values: unknown[]): Promise<Record<string, unknown> | null> {
    return this.claims.run(values);
  }

  /** Records an attempt: `recordAttempt`'s values; whether the call moved on (false: it was no longer in progress). */
  record(values: unknown[]): Promise<boolean> {
    return this.records.run(values);
  }
}

/**
 * The values of a batch with its items in call id order: concurrent statements then lock the rows they share
 * in the same order, and cannot deadlock on them.
 */
export function inIdOrder(batch: unknown[][], idAt: number): unknown[] {
  const id = (values: unknown[]) => values[idAt] as string;
  return [...batch].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0)).flat();
}

/** Postgres refused the values (a data exception or a limit such as nesting), or they could not be serialized. */
export function isDataError(error: unknown): boolean {
  return error instanceof RangeError || error instanceof TypeError || isRefusedValue(error);
}

/**
 * A batch's failure that running its items alone may avoid: refused values, a row a constraint refused
 * (SQLSTATE 23) or met twice (21), or a transaction Postgres rolled back (40: a deadlock, a serialization
 * failure). Each item then runs alone.
 */
export function worthRetryingAlone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isDataError(error) || (typeof code === 'string' && ['21', '23', '40'].includes(code.slice(0, 2)));
}
