// The SQL of the tool_call.finished events' ledger (call-event-ledger.ts), against named input columns, as the
// calls' (tool-call-ledger.sql.ts); statuses come from call-states.ts.
import * as attempts from './attempt-rows.sql.js';
import { SQL_STATUS } from './call-states.js';
import type { Statement } from './database-pool.js';
import { CLAIMED_EVENT_COLUMNS, OVERDUE_EVENT_COLUMNS, selectList } from './sql-columns.js';
import { type InputColumn, inputTable } from './sql-input.js';

/** Attempt `n` of an event to take, if it is due and no live attempt holds it. */
export interface EventClaimInput extends attempts.AttemptClaim {
  eventId: string;
  /** The attempt's timeout: with the margin, when it counts as lost. */
  timeoutMs: number;
}

const CLAIM_INPUT: readonly InputColumn<EventClaimInput>[] = [
  { name: 'id', type: 'text', of: (c) => c.eventId },
  { name: 'timeout_ms', type: 'int', of: (c) => c.timeoutMs },
  ...attempts.claimInput<EventClaimInput>(),
];

/** One attempt of an event, with where the event moves next. */
export interface EventAttemptRecord {
  eventId: string;
  attempt: attempts.AttemptRow;
  move: attempts.DeliveryMove;
}

const RECORD_INPUT: readonly InputColumn<EventAttemptRecord>[] = [
  { name: 'event_id', type: 'text', of: (r) => r.eventId },
  ...attempts.attemptRowInput<EventAttemptRecord>((r) => r.attempt),
  ...attempts.moveInput<EventAttemptRecord>((r) => r.move),
];

const EVENT_C = selectList(CLAIMED_EVENT_COLUMNS, 'c');

/**
 * The `call` object of a tool_call.finished event, fixed from the call (`m`, as its end moved it) when it ends (a
 * replay's new round has its own). The body's key order is set where it is sent (events/call-event-body.ts), not
 * here: jsonb keeps no order.
 */
const END_EVENT_PAYLOAD = `jsonb_build_object('call_id', m.id, 'agent_id', m.agent_id, 'dialog_id', m.dialog_id,
  'lead_id', m.lead_id, 'tool', m.agent_tool_name, 'execution_mode', m.execution_mode, 'status', m.status,
  'result', m.result, 'result_text', m.result_text, 'error', m.error,
  'finished_at', to_char(m.finished_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/**
 * For a statement of the calls' ledger that ends calls, after its CTE `moved` (the calls as moved, `RETURNING t.*`):
 * stores the tool_call.finished event of each wait or background call it ended whose project has an event endpoint,
 * in the same statement as the end (so no end is ever without its event, and a project without an endpoint costs no
 * query), then answers each moved call (its columns from `callColumns`, alias `m`) with the id of the event stored
 * for it (null when none) as `endEventId`.
 */
export function storeEndEvents(callColumns: string): string {
  return `, ended AS (
      INSERT INTO call_events (id, call_id, round, project_id, payload, status, next_attempt_n, next_attempt_at,
        created_at, updated_at)
      SELECT gen_random_uuid()::text, m.id, m.round, m.project_id, ${END_EVENT_PAYLOAD}, ${SQL_STATUS.queued}, 1,
        m.finished_at, m.finished_at, m.finished_at
      FROM moved m JOIN event_endpoints e ON e.project_id = m.project_id
      WHERE m.status IN (${SQL_STATUS.terminal}) AND m.execution_mode <> 'instant'
      ON CONFLICT (call_id, round) DO NOTHING
      RETURNING id, call_id
    ) SELECT ${callColumns}, ended.id AS "endEventId"
      FROM moved m LEFT JOIN ended ON ended.call_id = m.id`;
}

/** The events' ledger statements: the claim and the record take their input by name. */
export const EVENT_SQL = {
  /** Takes the attempt if due (EventClaimInput), with the project's event endpoint as it is now (null when deleted). */
  claim: {
    input: CLAIM_INPUT,
    statement: {
      name: 'call_events_claim',
      text: `${inputTable(CLAIM_INPUT, 1)}, claimed AS (
          UPDATE call_events e SET status = ${SQL_STATUS.inProgress}, updated_at = i.now,
            attempt_deadline = i.now + (i.timeout_ms + i.margin_ms) * interval '1 millisecond'
          FROM input i
          WHERE e.id = i.id AND e.next_attempt_n = i.n
            AND (e.status = ${SQL_STATUS.queued} OR (e.status = ${SQL_STATUS.inProgress} AND e.attempt_deadline < i.now))
          RETURNING e.*
        ) SELECT ${EVENT_C}, p.url AS "endpointUrl", p.secret_enc AS "endpointSecretEnc",
          p.retired_secrets AS "endpointRetiredSecrets"
        FROM claimed c LEFT JOIN event_endpoints p ON p.project_id = c.project_id`,
    } satisfies Statement,
  },
  /** The attempt's row and the event's move (EventAttemptRecord): only while that attempt holds the event. */
  record: {
    input: RECORD_INPUT,
    statement: {
      name: 'call_events_record',
      text: `${inputTable(RECORD_INPUT, 1)}, ${attempts.writeAttemptRows('call_event_attempts', ['event_id'])}
        UPDATE call_events e SET ${attempts.MOVE_SET}, updated_at = now() AT TIME ZONE 'UTC'
        FROM input i
        WHERE e.id = i.event_id AND e.status = ${SQL_STATUS.inProgress} AND e.next_attempt_n = i.n
        RETURNING e.id`,
    } satisfies Statement,
  },
  /** $1 event id, $2 error (jsonb), $3 now: an active event ends cancelled, no attempt made. */
  cancel: {
    name: 'call_events_cancel',
    text: `UPDATE call_events SET status = ${SQL_STATUS.cancelled}, error = $2::jsonb, finished_at = $3::timestamp(3),
        next_attempt_n = NULL, next_attempt_at = NULL, attempt_deadline = NULL, updated_at = $3::timestamp(3)
      WHERE id = $1 AND status IN (${SQL_STATUS.active}) RETURNING id`,
  } satisfies Statement,
  /** $1 now, $2 now less the grace, $3 limit, $4 the id to page on from (or null); on the two partial indexes. */
  overdue: {
    name: 'call_events_overdue',
    text: attempts.overdueText('call_events', selectList(OVERDUE_EVENT_COLUMNS)),
  } satisfies Statement,
};
