import type { ToolCall as ToolCallRow, ToolCallAttempt as ToolCallAttemptRow } from './generated/client.js';

// Each list below is also a CHECK constraint (migration 20261130233000_typed_call_states): Postgres refuses any other value.

/** Where a call stands. */
export const CALL_STATUSES = ['queued', 'in_progress', 'succeeded', 'failed', 'cancelled'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** A call that still makes (or waits to make) an attempt. */
export const ACTIVE_STATUSES = ['queued', 'in_progress'] as const satisfies readonly CallStatus[];
export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];

/** A call that makes no further attempt (until a replay starts a new round). */
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const satisfies readonly CallStatus[];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

/** The statuses as SQL literals, for the ledgers' statements (never user input). */
export const SQL_STATUS = {
  queued: "'queued'",
  inProgress: "'in_progress'",
  failed: "'failed'",
  cancelled: "'cancelled'",
  active: ACTIVE_STATUSES.map((status) => `'${status}'`).join(', '),
  terminal: TERMINAL_STATUSES.map((status) => `'${status}'`).join(', '),
} as const satisfies Record<string, string>;

export function isActive(status: CallStatus): status is ActiveStatus {
  return status === 'queued' || status === 'in_progress';
}

export function isTerminal(status: CallStatus): status is TerminalStatus {
  return !isActive(status);
}

/** How an HTTP tool's call runs; an MCP tool's call is always `instant`. */
export const EXECUTION_MODES = ['instant', 'wait', 'background'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** What a tool instance (and a call) calls: an HTTP tool of the app, or a tool of its MCP server. */
export const TOOL_KINDS = ['http', 'mcp'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** Whether an installation's agents wait for the project's approval of a changed tool definition (decision 032). */
export const APPROVE_CHANGES = ['ask', 'auto'] as const;
export type ApproveChanges = (typeof APPROVE_CHANGES)[number];

/** How long a wait or background call is retried (docs/webhooks.md); null for instant. */
export const RETRY_WINDOWS = ['5m', '3h', '1d'] as const;
export type RetryWindow = (typeof RETRY_WINDOWS)[number];

/**
 * How one attempt went (the `outcome` column of an attempt, and the call error's `kind`). The HTTP
 * sender gives the first eight, an MCP call `tool_error`, `cancelled` and `mcp_unavailable` besides.
 */
export const ATTEMPT_OUTCOMES = [
  'success',
  'http_status',
  'redirect',
  'timeout',
  'network',
  'response_too_large',
  'gone',
  'blocked_address',
  'tool_error',
  'cancelled',
  'mcp_unavailable',
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** The typed columns of a call row; Postgres holds them to these unions by its CHECK constraints. */
interface CallStates {
  status: CallStatus;
  executionMode: ExecutionMode;
  toolKind: ToolKind;
  retryWindow: RetryWindow | null;
}

export type ToolCall = Omit<ToolCallRow, keyof CallStates> & CallStates;
export type ToolCallAttempt = Omit<ToolCallAttemptRow, 'outcome'> & { outcome: AttemptOutcome };
