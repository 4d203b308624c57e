import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ACTIVE_STATUSES,
  APPROVE_CHANGES,
  ATTEMPT_OUTCOMES,
  CALL_STATUSES,
  EXECUTION_MODES,
  RETRY_WINDOWS,
  TERMINAL_STATUSES,
  TOOL_KINDS,
  isActive,
  isTerminal,
} from './call-states.js';

const MIGRATION = new URL('../../../prisma/migrations/20261130233000_typed_call_states/migration.sql', import.meta.url);

const APPROVALS_MIGRATION = new URL(
  '../../../prisma/migrations/20261206100000_approved_tool_definitions/migration.sql',
  import.meta.url,
);

/** The values a CHECK constraint of the migration allows, in its order. */
function checked(constraint: string, migration = MIGRATION): string[] {
  const sql = readFileSync(migration, 'utf8');
  const list = new RegExp(`"${constraint}" CHECK \\("\\w+" IN \\(([^)]*)\\)\\)`).exec(sql)?.[1];
  if (list === undefined) throw new Error(`no constraint ${constraint}`);
  return list.split(',').map((value) => value.trim().replace(/^'|'$/g, ''));
}

describe('call states', () => {
  it('are active or terminal, never both', () => {
    expect([...ACTIVE_STATUSES, ...TERMINAL_STATUSES].sort()).toEqual([...CALL_STATUSES].sort());
    for (const status of CALL_STATUSES) expect(isActive(status)).toBe(!isTerminal(status));
    expect(CALL_STATUSES.filter(isActive)).toEqual(['queued', 'in_progress']);
    expect(CALL_STATUSES.filter(isTerminal)).toEqual(['succeeded', 'failed', 'cancelled']);
  });

  it('are the lists the CHECK constraints of the migration hold', () => {
    expect(checked('tool_calls_status_check')).toEqual(CALL_STATUSES);
    expect(checked('tool_calls_execution_mode_check')).toEqual(EXECUTION_MODES);
    expect(checked('http_tools_execution_mode_check')).toEqual(EXECUTION_MODES);
    expect(checked('tool_calls_tool_kind_check')).toEqual(TOOL_KINDS);
    expect(checked('tool_instances_tool_kind_check')).toEqual(TOOL_KINDS);
    expect(checked('tool_calls_retry_window_check')).toEqual(RETRY_WINDOWS);
    expect(checked('http_tools_retry_window_check')).toEqual(RETRY_WINDOWS);
    expect(checked('installations_approve_changes_check', APPROVALS_MIGRATION)).toEqual(APPROVE_CHANGES);
    expect(checked('tool_call_attempts_outcome_check')).toEqual(ATTEMPT_OUTCOMES);
  });
});
