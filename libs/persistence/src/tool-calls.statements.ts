import type { Statement } from './database-pool.js';
import { utc } from './database-pool.js';
import type { NewToolCall, ToolCall } from './call-states.js';
import { Prisma } from './generated/client.js';
import { TARGET_APP_COLUMNS, TARGET_INSTANCE_COLUMNS, TOOL_CALL_COLUMNS, selectList } from './sql-columns.js';

const CALL = selectList(TOOL_CALL_COLUMNS);
const FIELDS = Object.keys(TOOL_CALL_COLUMNS) as (keyof ToolCall)[];
const JSON_FIELDS = new Set<keyof ToolCall>(['arguments', 'result', 'error']);

/**
 * Takes attempt $3 of round $2 if it is due and no live attempt holds the call ($5 is now: a live
 * attempt holds it until its deadline), with the tool's current handler URL and timeout (a fixed URL
 * reaches pending calls; `tool` reads the instance's HTTP tool once, and a call whose tool is gone keeps
 * its own); $4 is the margin in ms past that timeout after which the attempt counts as lost.
 */
const CLAIM = `WITH tool AS (
    SELECT c.id, h.handler_url, h.attempt_timeout_s FROM tool_calls c
      LEFT JOIN tool_instances ti ON ti.id = c.tool_instance_id
      LEFT JOIN http_tools h ON h.id = ti.http_tool_id
    WHERE c.id = $1
  ), claimed AS (
    UPDATE tool_calls t SET status = 'in_progress', updated_at = $5,
      handler_url = COALESCE(tool.handler_url, t.handler_url),
      attempt_timeout_s = COALESCE(tool.attempt_timeout_s, t.attempt_timeout_s),
      attempt_deadline = $5::timestamp(3) + make_interval(secs => COALESCE(tool.attempt_timeout_s, t.attempt_timeout_s))
        + $4::int * interval '1 millisecond'
    FROM tool
    WHERE t.id = tool.id AND t.round = $2 AND t.next_attempt_n = $3
      AND (t.status = 'queued' OR (t.status = 'in_progress' AND t.attempt_deadline < $5))
    RETURNING t.*
  )`;

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

/** The statements of a call's hot path (accept, claim, body, attempt), each prepared once per connection. */
export const TOOL_CALL_STATEMENTS = {
  create: {
    name: 'tool_calls_create',
    text: `INSERT INTO tool_calls (${FIELDS.map((field) => TOOL_CALL_COLUMNS[field]).join(', ')})
      VALUES (${FIELDS.map((field, i) => `$${i + 1}${JSON_FIELDS.has(field) ? '::jsonb' : ''}`).join(', ')})`,
  },
  getById: { name: 'tool_calls_get', text: `SELECT ${CALL} FROM tool_calls WHERE id = $1` },
  getForAgent: {
    name: 'tool_calls_get_for_agent',
    text: `SELECT ${CALL} FROM tool_calls WHERE id = $1 AND project_id = $2 AND agent_id = $3`,
  },
  // The claim with what the attempt checks first: the app, installation, instance and tool as they are now.
  claimForDelivery: {
    name: 'tool_calls_claim_for_delivery',
    text: `${CLAIM} SELECT ${TARGET_SELECT} FROM claimed c ${TARGET_JOINS}`,
  },
  currentTarget: {
    name: 'tool_calls_current_target',
    text: `SELECT ${TARGET_SELECT} FROM tool_calls c ${TARGET_JOINS} WHERE c.id = $1`,
  },
  storeBody: {
    name: 'tool_calls_store_body',
    text: 'UPDATE tool_calls SET body_enc = $2, updated_at = $3 WHERE id = $1 RETURNING id',
  },
  recordAttempt: {
    name: 'tool_calls_record_attempt',
    text: `WITH attempt AS (
        INSERT INTO tool_call_attempts (id, call_id, round, n, started_at, duration_ms, outcome, http_status, error, response_excerpt)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
        ON CONFLICT (call_id, round, n) DO UPDATE SET started_at = EXCLUDED.started_at, duration_ms = EXCLUDED.duration_ms,
          outcome = EXCLUDED.outcome, http_status = EXCLUDED.http_status, error = EXCLUDED.error,
          response_excerpt = EXCLUDED.response_excerpt
      )
      UPDATE tool_calls SET
        status = $11, next_attempt_n = $12, next_attempt_at = $13, first_attempt_at = $14, attempt_deadline = NULL,
        result = $15::jsonb, result_text = $16, error = $17::jsonb, finished_at = $18, updated_at = $19
      WHERE id = $2 AND round = $3 AND status = 'in_progress'
      RETURNING id`,
  },
} satisfies Record<string, Statement>;

/**
 * The row `create` stores, as Prisma would read it back: the given fields with the defaults Prisma would
 * have filled in, null where none (built here, so that the INSERT returns nothing to parse).
 */
export function newToolCallRow(call: NewToolCall, now: Date): ToolCall {
  const defaults: Partial<Record<keyof ToolCall, unknown>> = { round: 1, acceptedAt: now, updatedAt: now };
  const given: Partial<Record<keyof ToolCall, unknown>> = call;
  const row: Partial<Record<keyof ToolCall, unknown>> = {};
  for (const field of FIELDS) {
    const value = given[field] ?? defaults[field] ?? null;
    row[field] = value === Prisma.DbNull || value === Prisma.JsonNull ? null : value;
  }
  return row as ToolCall;
}

/** The values of `create`, in column order. */
export function newToolCallValues(call: NewToolCall, row: ToolCall): unknown[] {
  const given: Partial<Record<keyof ToolCall, unknown>> = call;
  return FIELDS.map((field) => {
    if (JSON_FIELDS.has(field)) return jsonText(given[field] ?? null);
    const value = row[field];
    return value instanceof Date ? utc(value) : value;
  });
}

/** A Json field's value as jsonb text: Prisma's DbNull is SQL NULL, its JsonNull the JSON `null`. */
function jsonText(value: unknown): string | null {
  if (value === null || value === Prisma.DbNull) return null;
  if (value === Prisma.JsonNull) return 'null';
  return JSON.stringify(value);
}
