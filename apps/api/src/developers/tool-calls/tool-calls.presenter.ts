import type { ToolCall, ToolCallAttempt, ToolCallWithAttempts } from '../../../../../libs/persistence/src/index.js';

/**
 * A call as its app's developer and its project see it: never the webhook body (it carries the configuration and
 * private data).
 */
export function presentCall(call: ToolCall) {
  return {
    id: call.id,
    event_id: call.eventId,
    status: call.status,
    tool_name: call.toolName,
    agent_tool_name: call.agentToolName,
    execution_mode: call.executionMode,
    retry_window: call.retryWindow,
    project_id: call.projectId,
    agent_id: call.agentId,
    installation_id: call.installationId,
    tool_instance_id: call.toolInstanceId,
    dialog_id: call.dialogId,
    lead_id: call.leadId,
    arguments: call.arguments,
    result: call.result,
    error: call.error,
    round: call.round,
    next_attempt_at: call.nextAttemptAt?.toISOString() ?? null,
    accepted_at: call.acceptedAt.toISOString(),
    finished_at: call.finishedAt?.toISOString() ?? null,
    test: call.test,
  };
}

export function presentCallWithAttempts(call: ToolCallWithAttempts) {
  return { ...presentCall(call), attempts: call.attempts.map((a) => ({ round: a.round, ...presentAttempt(a) })) };
}

/** One attempt at delivering something (a call's webhook, an event): when, how long, and how it ended. */
export function presentAttempt(attempt: DeliveryAttempt) {
  return {
    n: attempt.n,
    started_at: attempt.startedAt.toISOString(),
    duration_ms: attempt.durationMs,
    outcome: attempt.outcome,
    http_status: attempt.httpStatus,
    error: attempt.error,
    response_excerpt: attempt.responseExcerpt,
  };
}

type DeliveryAttempt = Pick<
  ToolCallAttempt,
  'n' | 'startedAt' | 'durationMs' | 'httpStatus' | 'error' | 'responseExcerpt'
> & {
  outcome: string;
};
