import { DATABASE_TIMEOUTS, DatabasePool } from './database-pool.js';
import { DatabaseBusyError, isDatabaseUnavailable } from './database-unavailable.js';
import { type BatchOptions, StatementBatcher } from './statement-batcher.js';
import {
  TOOL_CALL_STATEMENTS as SQL,
  claimCalls,
  createCalls,
  createWithAttempts,
  recordAttempts,
} from './tool-calls.statements.js';

/**
 * How the hot path's writes are batched: two statements of a kind at once, each carrying what arrived
 * meanwhile (up to 25 calls). Measured here (bench/cpu-per-call.mjs): Postgres CPU per queued call
 * 0.76 → 0.37 ms; two statements at once did about as well as one, and better than four or eight. An item
 * waits for a statement no longer than a request waits for a connection of the pool, and not at all once a
 * statement found Postgres away.
 */
function hotWrites(key: (values: unknown[]) => unknown, another?: BatchOptions<unknown[]>['another']) {
  return {
    maxInFlight: 2,
    maxBatch: 25,
    another,
    key,
    maxWaitMs: DATABASE_TIMEOUTS.connectMs,
    waitedTooLong: () => new DatabaseBusyError(`no statement for this write within ${DATABASE_TIMEOUTS.connectMs} ms`),
    retryAlone: worthRetryingAlone,
    failsAll: postgresAway,
  } satisfies BatchOptions<unknown[]>;
}

/**
 * The worker's claims and records arrive spread out (each as its attempt gets there), so a second statement beside
 * a running one would mostly carry one item: it starts for a full batch, or once the oldest item has waited 20 ms
 * (a slow statement does not hold the rest). Row 3 of the bench, three pairs: about 3.7 claims per statement
 * before, 6 after; Postgres CPU per queued call 0.47–0.50 → 0.39–0.40 ms, 1,040–1,058 → 1,110–1,144 calls/s. The
 * API's writes come from requests that arrive together, and keep the default (its records, of instant calls that
 * ran long and of the first attempts of queued calls it makes, share the worker's).
 */
const SPREAD_OUT = { waiting: 25, afterMs: 20 };

/** How long after a write Postgres counts as up: a call may then make its attempt before it is written. */
const ANSWERED_RECENTLY_MS = 1000;

/**
 * The writes of a call's hot path (accept, claim, record; an instant call's one write), each one statement per
 * batch of calls that arrive together (StatementBatcher). Each takes the values of its single statement in `SQL`.
 * They also say whether Postgres answered them lately (`answeredRecently`).
 */
export class ToolCallWrites {
  private readonly creates: StatementBatcher<unknown[], void>;
  private readonly claims: StatementBatcher<unknown[], Record<string, unknown> | null>;
  private readonly records: StatementBatcher<unknown[], boolean>;
  private readonly finished: StatementBatcher<unknown[], void>;
  private answeredAt = 0;
  private failedAt = 0;

  constructor(db: DatabasePool) {
    // The call's id: the first value of `create` and of the claim, the second of the record (after the attempt's).
    const callIdAt = (i: number) => (values: unknown[]) => values[i];
    // Every statement's outcome says whether Postgres takes these writes: any failure counts (Postgres away, a
    // schema that lost a table, a constraint), until a write succeeds again.
    const watched = <T>(statement: Promise<T>): Promise<T> =>
      statement.then(
        (result) => {
          this.answeredAt = Date.now();
          return result;
        },
        (error: unknown) => {
          this.failedAt = Date.now();
          throw error;
        },
      );

    this.creates = new StatementBatcher(
      hotWrites(callIdAt(0)),
      async (values) => {
        await watched(db.count(SQL.create, values));
      },
      async (batch) => {
        await watched(db.count(createCalls(batch.length), flatten(batch)));
        return batch.map(() => undefined);
      },
    );

    this.finished = new StatementBatcher(
      hotWrites(callIdAt(0)),
      async (values) => {
        await watched(db.count(SQL.createWithAttempt, values));
      },
      async (batch) => {
        await watched(db.count(createWithAttempts(batch.length), inIdOrder(batch, 0)));
        return batch.map(() => undefined);
      },
    );

    this.claims = new StatementBatcher(
      hotWrites(callIdAt(0), SPREAD_OUT),
      async (values) => (await watched(db.rows<Record<string, unknown>>(SQL.claimForDelivery, values)))[0] ?? null,
      async (batch) => {
        const rows = await watched(db.rows<Record<string, unknown>>(claimCalls(batch.length), inIdOrder(batch, 0)));
        const byId = new Map(rows.map((row) => [row.id, row]));
        return batch.map((values) => byId.get(values[0]) ?? null);
      },
    );

    this.records = new StatementBatcher(
      hotWrites(callIdAt(1), SPREAD_OUT),
      async (values) => (await watched(db.rows(SQL.recordAttempt, values))).length > 0,
      async (batch) => {
        const moved = await watched(db.rows<{ id: string }>(recordAttempts(batch.length), inIdOrder(batch, 1)));
        const movedIds = new Set<unknown>(moved.map((row) => row.id));
        return batch.map((values) => movedIds.has(values[1]));
      },
    );
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

  /** Stores a call that made its one attempt, with the attempt's row: `createWithAttempt`'s values. */
  createWithAttempt(values: unknown[]): Promise<void> {
    return this.finished.run(values);
  }

  /** Whether a write of these succeeded within the last second, and none failed since. */
  answeredRecently(now = Date.now()): boolean {
    return this.answeredAt > this.failedAt && now - this.answeredAt < ANSWERED_RECENTLY_MS;
  }
}

/**
 * The values of a batch with its items in call id order: concurrent statements then lock the rows they share
 * in the same order, and cannot deadlock on them.
 */
export function inIdOrder(batch: unknown[][], idAt: number): unknown[] {
  const id = (values: unknown[]) => values[idAt] as string;
  return flatten([...batch].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0)));
}

/** A batch's values in one list, as its statement's parameters: a loop, 12x faster here than `Array.flat`. */
export function flatten(batch: unknown[][]): unknown[] {
  const values: unknown[] = [];
  for (const item of batch) for (const value of item) values.push(value);
  return values;
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
