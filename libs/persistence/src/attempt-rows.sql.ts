// What both ledgers write the same way: an attempt's row, and the move of what it was an attempt of (a call, an
// event). Each ledger names its table and the columns that key the parent; the rest is here once.
import { type AttemptOutcome, type CallStatus, SQL_STATUS } from './call-states.js';
import { utc } from './database-pool.js';
import type { InputColumn } from './sql-input.js';
import { storableJsonText, storableText } from './storable.js';

/** One attempt, as recorded: when, how long, how it ended, and an excerpt of the answer. */
export interface AttemptRow {
  id: string;
  n: number;
  startedAt: Date;
  durationMs: number;
  outcome: AttemptOutcome;
  httpStatus: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/** Where a delivery's parent moves after an attempt: every field set (null where it does not apply). */
export interface DeliveryMove {
  status: CallStatus;
  nextAttemptN: number | null;
  nextAttemptAt: Date | null;
  firstAttemptAt: Date;
  error: unknown;
  finishedAt: Date | null;
}

/** Attempt `n` to take, if it is due and no live attempt holds what it delivers. */
export interface AttemptClaim {
  n: number;
  /** How long past its timeout an attempt counts as lost (a crash). */
  marginMs: number;
  now: Date;
}

/** The input columns of a claim (`n`, `margin_ms`, `now`), after the columns naming what is claimed. */
export function claimInput<T extends AttemptClaim>(): InputColumn<T>[] {
  return [
    { name: 'n', type: 'int', of: (c) => c.n },
    { name: 'margin_ms', type: 'int', of: (c) => c.marginMs },
    { name: 'now', type: 'timestamp(3)', of: (c) => utc(c.now) },
  ];
}

/** Text Postgres can hold (what a handler, server or endpoint said may carry NUL). */
export const storable = (value: string | null) => (value === null ? null : storableText(value));

/** The input columns of an item's attempt row (`attempt_id`, `n`, …, `response_excerpt`). */
export function attemptRowInput<T>(row: (item: T) => AttemptRow): InputColumn<T>[] {
  return [
    { name: 'attempt_id', type: 'text', of: (item) => row(item).id },
    { name: 'n', type: 'int', of: (item) => row(item).n },
    { name: 'started_at', type: 'timestamp(3)', of: (item) => utc(row(item).startedAt) },
    { name: 'duration_ms', type: 'int', of: (item) => row(item).durationMs },
    { name: 'outcome', type: 'text', of: (item) => row(item).outcome },
    { name: 'http_status', type: 'int', of: (item) => row(item).httpStatus },
    { name: 'attempt_error', type: 'text', of: (item) => storable(row(item).error) },
    { name: 'response_excerpt', type: 'text', of: (item) => storable(row(item).responseExcerpt) },
  ];
}

/** The input columns of an item's move (`status`, …, `finished_at`); the error is `moved_error`. */
export function moveInput<T>(move: (item: T) => DeliveryMove): InputColumn<T>[] {
  return [
    { name: 'status', type: 'text', of: (item) => move(item).status },
    { name: 'next_attempt_n', type: 'int', of: (item) => move(item).nextAttemptN },
    { name: 'next_attempt_at', type: 'timestamp(3)', of: (item) => utc(move(item).nextAttemptAt) },
    { name: 'first_attempt_at', type: 'timestamp(3)', of: (item) => utc(move(item).firstAttemptAt) },
    { name: 'moved_error', type: 'jsonb', of: (item) => storableJsonText(move(item).error) },
    { name: 'finished_at', type: 'timestamp(3)', of: (item) => utc(move(item).finishedAt) },
  ];
}

/**
 * The CTE `attempt` that writes each input row's attempt into `table`, its parent named by `parentColumns` (input
 * columns of the same names); an attempt written again (a retried statement) keeps one row.
 */
export function writeAttemptRows(table: string, parentColumns: readonly string[]): string {
  const parent = parentColumns.join(', ');
  return `attempt AS (
      INSERT INTO ${table} (id, ${parent}, n, started_at, duration_ms, outcome, http_status, error, response_excerpt)
      SELECT attempt_id, ${parent}, n, started_at, duration_ms, outcome, http_status, attempt_error, response_excerpt
      FROM input
      ON CONFLICT (${parent}, n) DO UPDATE SET started_at = EXCLUDED.started_at, duration_ms = EXCLUDED.duration_ms,
        outcome = EXCLUDED.outcome, http_status = EXCLUDED.http_status, error = EXCLUDED.error,
        response_excerpt = EXCLUDED.response_excerpt
    )`;
}

/** The SET list of a move (alias `i` the input): its status, schedule, error and end, its attempt no longer live. */
export const MOVE_SET = `status = i.status, next_attempt_n = i.next_attempt_n, next_attempt_at = i.next_attempt_at,
      first_attempt_at = i.first_attempt_at, attempt_deadline = NULL, error = i.moved_error, finished_at = i.finished_at`;

/**
 * The overdue rows of `table` (its columns `selected`): queued past the grace or in progress past their attempt's
 * deadline, on the two partial indexes of those states, in id order. $1 now, $2 now less the grace, $3 limit, $4 the id
 * to page on from (or null).
 */
export function overdueText(table: string, selected: string): string {
  return `SELECT ${selected} FROM ${table}
      WHERE ($4::text IS NULL OR id > $4::text)
        AND ((status = ${SQL_STATUS.queued} AND next_attempt_at < $2::timestamp(3))
          OR (status = ${SQL_STATUS.inProgress} AND attempt_deadline < $1::timestamp(3)))
      ORDER BY id LIMIT $3::int`;
}
