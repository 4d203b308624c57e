import type { ToolCall } from '../../../../libs/persistence/src/index.js';

/** A call as the agent sees it: the result when it succeeded, the error when it did not. */
export function presentCallOutcome(call: ToolCall) {
  if (call.status === 'succeeded')
    return { call_id: call.id, status: call.status, result: call.result, result_text: call.resultText };
  if (call.status === 'failed' || call.status === 'cancelled')
    return { call_id: call.id, status: call.status, error: call.error };
  return { call_id: call.id, status: call.status };
}

/** What repeats of an Idempotency-Key get when the first answer was too large to keep: where to read the call. */
export function presentReplayOfLargeOutcome(call: ToolCall) {
  const where = `/v1/agents/${encodeURIComponent(call.agentId)}/tool-calls/${call.id}`;
  return {
    call_id: call.id,
    status: call.status,
    result_omitted: `The first answer was too large to keep for repeats of this Idempotency-Key: read the call with GET ${where}.`,
  };
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
