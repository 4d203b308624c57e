import type { ToolCall } from '../../../../libs/persistence/src/index.js';

/** A call as the agent sees it: the result when it succeeded, the error when it did not. */
export function presentCallOutcome(call: ToolCall) {
  if (call.status === 'succeeded') return { call_id: call.id, status: call.status, result: call.result, result_text: call.resultText };
  if (call.status === 'failed' || call.status === 'cancelled') return { call_id: call.id, status: call.status, error: call.error };
  return { call_id: call.id, status: call.status };
}

export function presentAgentCall(call: ToolCall) {
  return {
    ...presentCallOutcome(call),
    tool: call.agentToolName,
    execution_mode: call.executionMode,
    accepted_at: call.acceptedAt.toISOString(),
    finished_at: call.finishedAt?.toISOString() ?? null,
  };
}
