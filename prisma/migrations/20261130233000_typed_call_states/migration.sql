-- The states of a call as CHECK constraints (not enums): the hot path's raw SQL compares and writes them as plain text,
-- Prisma reads them as the same strings ('5m' is no enum identifier), and a value is added by replacing one constraint.
-- The lists are those of libs/persistence/src/call-states.ts (call-states.spec.ts checks that they agree).
ALTER TABLE "tool_calls"
    ADD CONSTRAINT "tool_calls_status_check" CHECK ("status" IN ('queued', 'in_progress', 'succeeded', 'failed', 'cancelled')),
    ADD CONSTRAINT "tool_calls_execution_mode_check" CHECK ("execution_mode" IN ('instant', 'wait', 'background')),
    ADD CONSTRAINT "tool_calls_tool_kind_check" CHECK ("tool_kind" IN ('http', 'mcp')),
    ADD CONSTRAINT "tool_calls_retry_window_check" CHECK ("retry_window" IN ('5m', '3h', '1d'));

ALTER TABLE "tool_call_attempts"
    ADD CONSTRAINT "tool_call_attempts_outcome_check" CHECK ("outcome" IN ('success', 'http_status', 'redirect', 'timeout', 'network', 'response_too_large', 'gone', 'blocked_address', 'tool_error', 'cancelled', 'mcp_unavailable'));

ALTER TABLE "http_tools"
    ADD CONSTRAINT "http_tools_execution_mode_check" CHECK ("execution_mode" IN ('instant', 'wait', 'background')),
    ADD CONSTRAINT "http_tools_retry_window_check" CHECK ("retry_window" IN ('5m', '3h', '1d'));

ALTER TABLE "tool_instances"
    ADD CONSTRAINT "tool_instances_tool_kind_check" CHECK ("tool_kind" IN ('http', 'mcp'));
