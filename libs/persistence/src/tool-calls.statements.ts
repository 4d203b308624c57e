import type { Statement } from './database-pool.js';
import { utc } from './database-pool.js';
import type { NewToolCall, ToolCall } from './call-states.js';
import { Prisma } from './generated/client.js';
import { TARGET_APP_COLUMNS, TARGET_INSTANCE_COLUMNS, TOOL_CALL_COLUMNS, selectList } from './sql-columns.js';

const CALL = selectList(TOOL_CALL_COLUMNS);
const FIELDS = Object.keys(TOOL_CALL_COLUMNS) as (keyof ToolCall)[];
const JSON_FIELDS = new Set<keyof ToolCall>(['arguments', 'result', 'error']);

/**
 * Takes, for each input row, attempt `n` of round `round` if it is due and no live attempt holds the call
 * (`now`: a live attempt holds it until its deadline), with the tool's current handler URL and timeout (a fixed
 * URL reaches pending calls; `tool` reads each instance's HTTP tool once, and a call whose tool is gone keeps
 * its own); `margin_ms` is how long past that timeout the attempt counts as lost.
 */
function claimText(size: number): string {
  return `WITH input (id, round, n, margin_ms, now) AS (
      VALUES ${valueRows(size, ['::text', '::int', '::int', '::int', '::timestamp(3)'])}
    ), tool AS (
      SELECT c.id, h.handler_url, h.attempt_timeout_s FROM input
        JOIN tool_calls c ON c.id = input.id
        LEFT JOIN tool_instances ti ON ti.id = c.tool_instance_id
        LEFT JOIN http_tools h ON h.id = ti.http_tool_id
    ), claimed AS (
      UPDATE tool_calls t SET status = 'in_progress', updated_at = i.now,
        handler_url = COALESCE(tool.handler_url, t.handler_url),
        attempt_timeout_s = COALESCE(tool.attempt_timeout_s, t.attempt_timeout_s),
        attempt_deadline = i.now + make_interval(secs => COALESCE(tool.attempt_timeout_s, t.attempt_timeout_s))
          + i.margin_ms * interval '1 millisecond'
      FROM input i JOIN tool ON tool.id = i.id
      WHERE t.id = i.id AND t.round = i.round AND t.next_attempt_n = i.n
        AND (t.status = 'queued' OR (t.status = 'in_progress' AND t.attempt_deadline < i.now))
      RETURNING t.*
    ) SELECT ${TARGET_SELECT} FROM claimed c ${TARGET_JOINS}`;
}

/**
 * A call (alias `c`) with what its next attempt checks and needs of its app, installation, instance and HTTP tool
 * as they are now (null where gone): the claim's answer, and what a replay checks first.
 */
const TARGET_SELECT = `${selectList(TOOL_CALL_COLUMNS, 'c')}, ${selectList(TARGET_APP_COLUMNS, 'a', 'a.')},
  n.id AS "n.id", ${selectList(TARGET_INSTANCE_COLUMNS, 'i', 'i.')},
  EXISTS (SELECT 1 FROM http_tools t WHERE t.app_id = c.app_id AND t.name = c.tool_name) AS "httpToolExists"`;
const TARGET_JOINS = `LEFT JOIN apps a ON a.id = c.app_id
  LEFT JOIN installations n ON n.id = c.installation_id
  LEFT JOIN tool_instances i ON i.id = c.tool_instance_id AND i.installation_id = n.id`;

/** The values of one recorded attempt, in this order, with their types (`recordAttempts` takes them). */
const RECORD_INPUT = [
  ['attempt_id', 'text'],
  ['call_id', 'text'],
  ['round', 'int'],
  ['n', 'int'],
  ['started_at', 'timestamp(3)'],
  ['duration_ms', 'int'],
  ['outcome', 'text'],
  ['http_status', 'int'],
  ['error', 'text'],
  ['response_excerpt', 'text'],
  ['status', 'text'],
  ['next_attempt_n', 'int'],
  ['next_attempt_at', 'timestamp(3)'],
  ['first_attempt_at', 'timestamp(3)'],
  ['result', 'jsonb'],
  ['result_text', 'text'],
  ['call_error', 'jsonb'],
  ['finished_at', 'timestamp(3)'],
  ['updated_at', 'timestamp(3)'],
] as const;
const RECORD_CASTS = RECORD_INPUT.map(([, type]) => `::${type}`);

/**
 * `(…), (…)`: `size` rows of parameters, the row's columns cast as `casts` says. An item's values are `stride` long
 * (more than `casts` where a statement takes two rows of each item) and these columns start at `offset` in them.
 */
function valueRows(size: number, casts: readonly string[], stride = casts.length, offset = 0): string {
  const rows = Array.from({ length: size }, (_, row) => {
    const params = casts.map((cast, column) => `$${row * stride + offset + column + 1}${cast}`);
    return `(${params.join(', ')})`;
  });
  return rows.join(',\n      ');
}

/**
 * Records `size` attempts and moves each one's call on (the attempt's row is written even where the call was
 * cancelled meanwhile: it stays cancelled). Returns the id of each call that moved.
 */
function recordAttemptsText(size: number): string {
  const columns = RECORD_INPUT.map(([column]) => column).join(', ');
  return `WITH input (${columns}) AS (
      VALUES ${valueRows(size, RECORD_CASTS)}
    ), attempt AS (
      INSERT INTO tool_call_attempts (id, call_id, round, n, started_at, duration_ms, outcome, http_status, error, response_excerpt)
      SELECT attempt_id, call_id, round, n, started_at, duration_ms, outcome, http_status, error, response_excerpt FROM input
      ON CONFLICT (call_id, round, n) DO UPDATE SET started_at = EXCLUDED.started_at, duration_ms = EXCLUDED.duration_ms,
        outcome = EXCLUDED.outcome, http_status = EXCLUDED.http_status, error = EXCLUDED.error,
        response_excerpt = EXCLUDED.response_excerpt
    )
    UPDATE tool_calls t SET
      status = i.status, next_attempt_n = i.next_attempt_n, next_attempt_at = i.next_attempt_at,
      first_attempt_at = i.first_attempt_at, attempt_deadline = NULL, result = i.result, result_text = i.result_text,
      error = i.call_error, finished_at = i.finished_at, updated_at = i.updated_at
    FROM input i
    WHERE t.id = i.call_id AND t.round = i.round AND t.status = 'in_progress'
    RETURNING t.id`;
}

const CREATE_CASTS = FIELDS.map((field) => (JSON_FIELDS.has(field) ? '::jsonb' : ''));

/** Stores `size` new calls. */
function createText(size: number): string {
  return `INSERT INTO tool_calls (${FIELDS.map((field) => TOOL_CALL_COLUMNS[field]).join(', ')})
      VALUES ${valueRows(size, CREATE_CASTS)}`;
}

/** The columns of an attempt's row, in the order `createWithAttempts` takes them after the call's. */
const ATTEMPT_INPUT = RECORD_INPUT.slice(0, 10);
const ATTEMPT_CASTS = ATTEMPT_INPUT.map(([, type]) => `::${type}`);

/**
 * Stores `size` calls that made their one attempt, each with its attempt's row: an instant call written once, when
 * its attempt ended (an item's values: `finishedCallValues`).
 */
function createWithAttemptsText(size: number): string {
  const stride = CREATE_CASTS.length + ATTEMPT_CASTS.length;
  const attemptColumns = ATTEMPT_INPUT.map(([column]) => (column === 'attempt_id' ? 'id' : column));
  return `WITH call AS (
      INSERT INTO tool_calls (${FIELDS.map((field) => TOOL_CALL_COLUMNS[field]).join(', ')})
      VALUES ${valueRows(size, CREATE_CASTS, stride)}
    )
    INSERT INTO tool_call_attempts (${attemptColumns.join(', ')})
      VALUES ${valueRows(size, ATTEMPT_CASTS, stride, CREATE_CASTS.length)}`;
}

/** A statement for `size` items, built and named once per size (so prepared once per connection and size). */
function perSize(name: string, text: (size: number) => string): (size: number) => Statement {
  const statements = new Map<number, Statement>();
  return (size) => {
    let statement = statements.get(size);
    if (!statement) {
      statement = { name: `${name}_${size}`, text: text(size) };
      statements.set(size, statement);
    }
    return statement;
  };
}

/** Stores `size` new calls; its values are `newToolCallValues` of each, one after the other. */
export const createCalls = perSize('tool_calls_create', createText);
/** Claims `size` attempts; its values are `id, round, n, margin_ms, now` of each, one after the other. */
export const claimCalls = perSize('tool_calls_claim', claimText);
/** Records `size` attempts; its values are `RECORD_INPUT` of each, one after the other. */
export const recordAttempts = perSize('tool_calls_record_attempts', recordAttemptsText);
/** Stores `size` calls with their one attempt; its values are `finishedCallValues` of each, one after the other. */
export const createWithAttempts = perSize('tool_calls_create_with_attempt', createWithAttemptsText);

/** The statements of a call's hot path (accept, claim, body, attempt), each prepared once per connection. */
export const TOOL_CALL_STATEMENTS = {
  create: createCalls(1),
  getById: { name: 'tool_calls_get', text: `SELECT ${CALL} FROM tool_calls WHERE id = $1` },
  getForAgent: {
    name: 'tool_calls_get_for_agent',
    text: `SELECT ${CALL} FROM tool_calls WHERE id = $1 AND project_id = $2 AND agent_id = $3`,
  },
  // The claim with what the attempt checks first: the app, installation, instance and tool as they are now.
  claimForDelivery: claimCalls(1),
  currentTarget: {
    name: 'tool_calls_current_target',
    text: `SELECT ${TARGET_SELECT} FROM tool_calls c ${TARGET_JOINS} WHERE c.id = $1`,
  },
  storeBody: {
    name: 'tool_calls_store_body',
    text: 'UPDATE tool_calls SET body_enc = $2, updated_at = $3 WHERE id = $1 RETURNING id',
  },
  recordAttempt: recordAttempts(1),
  createWithAttempt: createWithAttempts(1),
} satisfies Record<string, Statement>;

/**
 * The row `create` stores, as Prisma would read it back: the given fields with the defaults Prisma would
 * have filled in, null where none (built here, so that the INSERT returns nothing to parse). Field by field, not
 * a loop over TOOL_CALL_COLUMNS: a property read by a variable name takes V8's slow (megamorphic) path. An instant
 * call's row and values cost 12-14 µs that way, 0.7 µs this way (with isoTimestamp).
 */
export function newToolCallRow(call: NewToolCall, now: Date): ToolCall {
  const row: Record<keyof ToolCall, unknown> = {
    id: call.id,
    eventId: call.eventId,
    appId: call.appId,
    installationId: call.installationId,
    projectId: call.projectId,
    agentId: call.agentId,
    toolInstanceId: call.toolInstanceId,
    toolKind: call.toolKind,
    toolName: call.toolName,
    agentToolName: call.agentToolName,
    dialogId: call.dialogId,
    leadId: call.leadId ?? null,
    executionMode: call.executionMode,
    retryWindow: call.retryWindow ?? null,
    attemptTimeoutS: call.attemptTimeoutS,
    handlerUrl: call.handlerUrl ?? null,
    arguments: jsonValue(call.arguments),
    bodyEnc: call.bodyEnc ?? null,
    status: call.status,
    round: call.round ?? 1,
    nextAttemptN: call.nextAttemptN ?? null,
    nextAttemptAt: call.nextAttemptAt ?? null,
    firstAttemptAt: call.firstAttemptAt ?? null,
    attemptDeadline: call.attemptDeadline ?? null,
    result: jsonValue(call.result),
    resultText: call.resultText ?? null,
    error: jsonValue(call.error),
    acceptedAt: call.acceptedAt ?? now,
    finishedAt: call.finishedAt ?? null,
    updatedAt: call.updatedAt ?? now,
  };
  return row as ToolCall;
}

/** The values of `create`, in column order (FIELDS'), field by field as `newToolCallRow`. */
export function newToolCallValues(call: NewToolCall, row: ToolCall): unknown[] {
  return [
    row.id,
    row.eventId,
    row.appId,
    row.installationId,
    row.projectId,
    row.agentId,
    row.toolInstanceId,
    row.toolKind,
    row.toolName,
    row.agentToolName,
    row.dialogId,
    row.leadId,
    row.executionMode,
    row.retryWindow,
    row.attemptTimeoutS,
    row.handlerUrl,
    jsonText(call.arguments ?? null),
    row.bodyEnc,
    row.status,
    row.round,
    row.nextAttemptN,
    utc(row.nextAttemptAt),
    utc(row.firstAttemptAt),
    utc(row.attemptDeadline),
    jsonText(call.result ?? null),
    row.resultText,
    jsonText(call.error ?? null),
    utc(row.acceptedAt),
    utc(row.finishedAt),
    utc(row.updatedAt),
  ];
}

/** Where each of the call's columns a record sets is, in `create`'s values and in the record's (RECORD_INPUT). */
const RECORD_MOVES = RECORD_INPUT.slice(ATTEMPT_INPUT.length).map(([column], i) => {
  const field = FIELDS.findIndex((f) => TOOL_CALL_COLUMNS[f] === (column === 'call_error' ? 'error' : column));
  return { at: field, from: ATTEMPT_INPUT.length + i };
});
const ATTEMPT_DEADLINE_AT = FIELDS.indexOf('attemptDeadline');

/**
 * The values of `createWithAttempt`: the call's row (`create`'s values) as the record's values (`recordAttempt`'s)
 * move it, no longer held by an attempt, then its attempt's row.
 */
export function finishedCallValues(call: NewToolCall, row: ToolCall, record: readonly unknown[]): unknown[] {
  const values = newToolCallValues(call, row);
  for (const { at, from } of RECORD_MOVES) values[at] = record[from];
  values[ATTEMPT_DEADLINE_AT] = null;
  for (let i = 0; i < ATTEMPT_INPUT.length; i += 1) values.push(record[i]);
  return values;
}

/** A Json field as Prisma reads it back: its DbNull and JsonNull are null. */
function jsonValue(value: unknown): unknown {
  return value === undefined || value === Prisma.DbNull || value === Prisma.JsonNull ? null : value;
}

/** A Json field's value as jsonb text: Prisma's DbNull is SQL NULL, its JsonNull the JSON `null`. */
function jsonText(value: unknown): string | null {
  if (value === null || value === Prisma.DbNull) return null;
  if (value === Prisma.JsonNull) return 'null';
  return JSON.stringify(value);
}
