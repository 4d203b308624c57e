// The SQL of the tool-call ledger (tool-call-ledger.ts): every statement that writes calls, and the hot path's reads,
// each in one place, against named input columns. Statuses come from call-states.ts.
import type { Statement } from './database-pool.js';
import { utc } from './database-pool.js';
import { type ExecutionMode, type RetryWindow, SQL_STATUS, type ToolKind } from './call-states.js';
import {
  OVERDUE_CALL_COLUMNS,
  TARGET_APP_COLUMNS,
  TARGET_INSTANCE_COLUMNS,
  TOOL_CALL_COLUMNS,
  selectList,
} from './sql-columns.js';
import { type InputColumn, inputTable, perSize } from './sql-input.js';
import { storableJsonText } from './storable.js';
import {
  type AttemptClaim,
  type AttemptRow,
  type DeliveryMove,
  MOVE_SET,
  attemptRowInput,
  claimInput,
  moveInput,
  overdueText,
  storable,
  writeAttemptRows,
} from './attempt-rows.sql.js';
import { storeEndEvents } from './call-event-ledger.sql.js';

/** A call's columns, named by their fields, as every statement here returns a call. */
const CALL = selectList(TOOL_CALL_COLUMNS);
const CALL_T = selectList(TOOL_CALL_COLUMNS, 't');

/** A call as it is first stored: queued for attempt 1, or in progress with that attempt under way. */
export interface NewToolCall {
  id: string;
  eventId: string;
  appId: string;
  installationId: string;
  projectId: string;
  agentId: string;
  toolInstanceId: string;
  toolKind: ToolKind;
  toolName: string;
  agentToolName: string;
  dialogId: string;
  leadId: string | null;
  executionMode: ExecutionMode;
  retryWindow: RetryWindow | null;
  attemptTimeoutS: number;
  handlerUrl: string | null;
  arguments: unknown;
  /** The exact webhook body, encrypted (null for an MCP call). */
  bodyEnc: string | null;
  status: 'queued' | 'in_progress';
  /** In progress: when the attempt under way counts as lost. */
  attemptDeadline: Date | null;
  acceptedAt: Date;
  /** A developer's test call (no project, agent or installation behind it). */
  test: boolean;
}

const CREATE_INPUT: readonly InputColumn<NewToolCall>[] = [
  { name: 'id', type: 'text', of: (c) => c.id },
  { name: 'event_id', type: 'text', of: (c) => c.eventId },
  { name: 'app_id', type: 'text', of: (c) => c.appId },
  { name: 'installation_id', type: 'text', of: (c) => c.installationId },
  { name: 'project_id', type: 'text', of: (c) => c.projectId },
  { name: 'agent_id', type: 'text', of: (c) => c.agentId },
  { name: 'tool_instance_id', type: 'text', of: (c) => c.toolInstanceId },
  { name: 'tool_kind', type: 'text', of: (c) => c.toolKind },
  { name: 'tool_name', type: 'text', of: (c) => c.toolName },
  { name: 'agent_tool_name', type: 'text', of: (c) => c.agentToolName },
  { name: 'dialog_id', type: 'text', of: (c) => c.dialogId },
  { name: 'lead_id', type: 'text', of: (c) => c.leadId },
  { name: 'execution_mode', type: 'text', of: (c) => c.executionMode },
  { name: 'retry_window', type: 'text', of: (c) => c.retryWindow },
  { name: 'attempt_timeout_s', type: 'int', of: (c) => c.attemptTimeoutS },
  { name: 'handler_url', type: 'text', of: (c) => c.handlerUrl },
  { name: 'arguments', type: 'jsonb', of: (c) => JSON.stringify(c.arguments ?? null) },
  { name: 'body_enc', type: 'text', of: (c) => c.bodyEnc },
  { name: 'status', type: 'text', of: (c) => c.status },
  { name: 'attempt_deadline', type: 'timestamp(3)', of: (c) => utc(c.attemptDeadline) },
  { name: 'accepted_at', type: 'timestamp(3)', of: (c) => utc(c.acceptedAt) },
  { name: 'test', type: 'boolean', of: (c) => c.test },
];

/** Stores new calls, each due as attempt 1 of round 1 from its acceptance; returns them as stored. */
function createText(size: number): string {
  const columns = CREATE_INPUT.map((column) => column.name).join(', ');
  return `${inputTable(CREATE_INPUT, size)}
    INSERT INTO tool_calls (${columns}, round, next_attempt_n, next_attempt_at, updated_at)
    SELECT ${columns}, 1, 1, accepted_at, accepted_at FROM input
    RETURNING ${CALL}`;
}

/** Attempt `n` of round `round` to take, if it is due and no live attempt holds the call. */
export interface ClaimInput extends AttemptClaim {
  callId: string;
  round: number;
}

const CLAIM_INPUT: readonly InputColumn<ClaimInput>[] = [
  { name: 'id', type: 'text', of: (c) => c.callId },
  { name: 'round', type: 'int', of: (c) => c.round },
  ...claimInput<ClaimInput>(),
];

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

/**
 * Takes each attempt if it is due and no live attempt holds the call (one holds it until its deadline), with the
 * tool's current handler URL and timeout (a fixed URL reaches pending calls; a call whose tool is gone keeps its
 * own); returns each taken call with its target (TARGET_SELECT).
 */
function claimText(size: number): string {
  return `${inputTable(CLAIM_INPUT, size)}, tool AS (
      SELECT c.id, h.handler_url, h.attempt_timeout_s FROM input
        JOIN tool_calls c ON c.id = input.id
        LEFT JOIN tool_instances ti ON ti.id = c.tool_instance_id
        LEFT JOIN http_tools h ON h.id = ti.http_tool_id
    ), claimed AS (
      UPDATE tool_calls t SET status = ${SQL_STATUS.inProgress}, updated_at = i.now,
        handler_url = COALESCE(tool.handler_url, t.handler_url),
        attempt_timeout_s = COALESCE(tool.attempt_timeout_s, t.attempt_timeout_s),
        attempt_deadline = i.now + make_interval(secs => COALESCE(tool.attempt_timeout_s, t.attempt_timeout_s))
          + i.margin_ms * interval '1 millisecond'
      FROM input i JOIN tool ON tool.id = i.id
      WHERE t.id = i.id AND t.round = i.round AND t.next_attempt_n = i.n
        AND (t.status = ${SQL_STATUS.queued} OR (t.status = ${SQL_STATUS.inProgress} AND t.attempt_deadline < i.now))
      RETURNING t.*
    ) SELECT ${TARGET_SELECT} FROM claimed c ${TARGET_JOINS}`;
}

/** The row of one attempt of a call, as recorded. */
export interface AttemptRecord extends AttemptRow {
  callId: string;
  round: number;
}

/** Where a call moves after an attempt: every field set (null where it does not apply). */
export interface CallTransition extends DeliveryMove {
  result: unknown;
  resultText: string | null;
}

/** An attempt to record, with the call's move, at `at`. */
export interface RecordInput {
  attempt: AttemptRecord;
  move: CallTransition;
  at: Date;
}

const RECORD_INPUT: readonly InputColumn<RecordInput>[] = [
  { name: 'call_id', type: 'text', of: (r) => r.attempt.callId },
  { name: 'round', type: 'int', of: (r) => r.attempt.round },
  ...attemptRowInput<RecordInput>((r) => r.attempt),
  ...moveInput<RecordInput>((r) => r.move),
  { name: 'result', type: 'jsonb', of: (r) => storableJsonText(r.move.result) },
  { name: 'result_text', type: 'text', of: (r) => storable(r.move.resultText) },
  { name: 'at', type: 'timestamp(3)', of: (r) => utc(r.at) },
];

/**
 * Records attempts and moves each one's call on, if it is still in progress in that round (the attempt's row is
 * written even where the call was cancelled meanwhile: it stays cancelled). Returns each call that moved.
 */
function recordText(size: number): string {
  return `${recordAttemptRows(size)}
    ${recordMove('CALL_T')}`;
}

/** The input and the CTE `attempt` that writes each attempt's row. */
function recordAttemptRows(size: number): string {
  return `${inputTable(RECORD_INPUT, size)}, ${writeAttemptRows('tool_call_attempts', ['call_id', 'round'])}`;
}

/** The move of each recorded call still in progress in that round. */
function recordMove(returning: 'CALL_T' | 't.*'): string {
  return `UPDATE tool_calls t SET ${MOVE_SET},
      result = i.result, result_text = i.result_text, updated_at = i.at
    FROM input i
    WHERE t.id = i.call_id AND t.round = i.round AND t.status = ${SQL_STATUS.inProgress}
    RETURNING ${returning === 'CALL_T' ? CALL_T : 't.*'}`;
}

/** After the CTE `moved`: the tool_call.finished events of the calls it ended, stored by the events' ledger's SQL. */
const WITH_END_EVENTS = storeEndEvents(selectList(TOOL_CALL_COLUMNS, 'm'));

/** recordText for queued calls: a call that ends stores its tool_call.finished event in the same statement. */
function recordQueuedText(size: number): string {
  return `${recordAttemptRows(size)}, moved AS (
      ${recordMove('t.*')}
    )${WITH_END_EVENTS}`;
}

/** Stores calls: the parameters are `inputValues(CREATE_INPUT, calls)`. */
export const createCalls = { input: CREATE_INPUT, statement: perSize('tool_calls_create', createText) };
/** Claims attempts: the parameters are `inputValues(CLAIM_INPUT, claims)`. */
export const claimAttempts = { input: CLAIM_INPUT, statement: perSize('tool_calls_claim', claimText) };
/** Records attempts: the parameters are `inputValues(RECORD_INPUT, records)`. */
export const recordAttempts = { input: RECORD_INPUT, statement: perSize('tool_calls_record', recordText) };
/** Records attempts of queued calls, with the events of those that end (WITH_END_EVENTS): the same parameters. */
export const recordQueuedAttempts = {
  input: RECORD_INPUT,
  statement: perSize('tool_calls_record_queued', recordQueuedText),
};

/** The ledger's single statements, each with its parameters named in its comment. */
export const LEDGER_SQL = {
  /** $1 call id. */
  getById: { name: 'tool_calls_get', text: `SELECT ${CALL} FROM tool_calls WHERE id = $1` },
  /** $1 call id, $2 project, $3 agent. */
  getForAgent: {
    name: 'tool_calls_get_for_agent',
    text: `SELECT ${CALL} FROM tool_calls WHERE id = $1 AND project_id = $2 AND agent_id = $3 AND NOT test`,
  },
  /** $1 call id: the call with what its next attempt would check (TARGET_SELECT). */
  currentTarget: {
    name: 'tool_calls_current_target',
    text: `SELECT ${TARGET_SELECT} FROM tool_calls c ${TARGET_JOINS} WHERE c.id = $1`,
  },
  /** $1 call id, $2 the call's error (jsonb), $3 now: an active call ends cancelled (with its event: WITH_END_EVENTS). */
  cancel: {
    name: 'tool_calls_cancel',
    text: `WITH moved AS (
        UPDATE tool_calls SET status = ${SQL_STATUS.cancelled}, error = $2::jsonb, finished_at = $3::timestamp(3),
          next_attempt_at = NULL, next_attempt_n = NULL, attempt_deadline = NULL, updated_at = $3::timestamp(3)
        WHERE id = $1 AND status IN (${SQL_STATUS.active}) RETURNING *
      )${WITH_END_EVENTS}`,
  },
  /** $1 call id, $2 now: a finished call starts a new round of its schedule, due now (same event and body). */
  startNewRound: {
    name: 'tool_calls_start_new_round',
    text: `UPDATE tool_calls SET status = ${SQL_STATUS.queued}, round = round + 1, next_attempt_n = 1,
        next_attempt_at = $2::timestamp(3), first_attempt_at = NULL, attempt_deadline = NULL, result = NULL,
        result_text = NULL, error = NULL, finished_at = NULL, updated_at = $2::timestamp(3)
      WHERE id = $1 AND status IN (${SQL_STATUS.terminal}) RETURNING ${CALL}`,
  },
  /**
   * $1 call id, $2 the call's error (jsonb), $3 now, $4 now less the grace: a call whose process died ends failed,
   * if it is still in progress past its deadline, or queued past the grace.
   */
  failStuck: {
    name: 'tool_calls_fail_stuck',
    text: `UPDATE tool_calls SET status = ${SQL_STATUS.failed}, error = $2::jsonb, finished_at = $3::timestamp(3),
        next_attempt_at = NULL, next_attempt_n = NULL, attempt_deadline = NULL, updated_at = $3::timestamp(3)
      WHERE id = $1 AND ((status = ${SQL_STATUS.inProgress} AND attempt_deadline < $3::timestamp(3))
        OR (status = ${SQL_STATUS.queued} AND next_attempt_at < $4::timestamp(3)))
      RETURNING id`,
  },
  /**
   * $1 now, $2 now less the grace, $3 limit, $4 the id to page on from (or null): active calls queued past the
   * grace or in progress past their deadline, on the two partial indexes of those states, with only what their
   * jobs need (a backlog is read every run).
   */
  overdue: {
    name: 'tool_calls_overdue',
    text: overdueText('tool_calls', selectList(OVERDUE_CALL_COLUMNS)),
  },
} satisfies Record<string, Statement>;
