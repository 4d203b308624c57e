import { type AgentTool, isTerminal, parametersJsonSchema } from '../../../../libs/domain/src/index.js';
import type { ToolCall } from '../../../../libs/persistence/src/index.js';
import type { AgentIdentity } from '../common/auth.guard.js';

/** What an agent is shown of a callable tool: `GET /v1/agents/{agent_id}/tools` and the MCP endpoint's `tools/list`. */
export function presentAgentTool(tool: AgentTool) {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.mcp ? (tool.mcp.inputSchema as Record<string, unknown>) : parametersJsonSchema(tool.parameters),
    tool_instance_id: tool.instance.id,
    execution_mode: tool.tool?.execution_mode ?? 'instant',
  };
}

/** A call as the agent sees it: the result when it succeeded, the error when it did not. */
export function presentCallAnswer(call: ToolCall) {
  if (call.status === 'succeeded')
    return { call_id: call.id, status: call.status, result: call.result, result_text: call.resultText };
  if (call.status === 'failed' || call.status === 'cancelled')
    return { call_id: call.id, status: call.status, error: call.error };
  return { call_id: call.id, status: call.status };
}

/** The status of the answer to a new call: 200 once it has finished (instant), 202 while it runs (queued). */
export function callAnswerStatus(call: ToolCall): 200 | 202 {
  return isTerminal(call.status) ? 200 : 202;
}

/** What repeats of an Idempotency-Key get when the first answer was too large to keep: where to read the call. */
export function presentReplayOfLargeAnswer(answer: ReturnType<typeof presentCallAnswer>, agent: AgentIdentity) {
  const where = `/v1/agents/${encodeURIComponent(agent.agentId)}/tool-calls/${answer.call_id}`;
  return {
    call_id: answer.call_id,
    status: answer.status,
    result_omitted: `The first answer was too large to keep for repeats of this Idempotency-Key: read the call with GET ${where}.`,
  };
}

export function presentAgentCall(call: ToolCall) {
  // Assigned onto the answer (same key order): keys added after a leading spread take V8's slow path.
  return Object.assign(presentCallAnswer(call), {
    tool: call.agentToolName,
    execution_mode: call.executionMode,
    accepted_at: call.acceptedAt.toISOString(),
    finished_at: call.finishedAt?.toISOString() ?? null,
  });
}
