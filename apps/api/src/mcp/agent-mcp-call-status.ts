import type { Tool } from '@modelcontextprotocol/server';
import {
  type AgentRef,
  type AgentTool,
  DomainError,
  GetAgentToolCall,
  isTerminal,
} from '../../../../libs/domain/src/index.js';
import { type McpCallResult, finishedCallResult, textResult } from './agent-mcp-results.js';
import { refusalResult } from './mcp-refusals.js';

/**
 * The endpoint's own tool that finishes a `wait` call which outlived the MCP deadline. No
 * agent-facing name can equal it: every one is `<app>_<tool>` and so contains "_"; this one has none.
 */
export const CALL_STATUS_TOOL = 'toolgate-call-status';

const CALL_ID_MAX_LENGTH = 100;

/** Offered only to an agent that has a `wait` tool: no other call can outlive the deadline. */
export function offersCallStatus(tools: readonly AgentTool[]): boolean {
  return tools.some((tool) => tool.tool?.execution_mode === 'wait');
}

export function callStatusTool(deadlineS: number): Tool {
  return {
    name: CALL_STATUS_TOOL,
    description:
      '[Toolgate] Finishes a tool call that was still running when its answer was due: waits up to ' +
      `${deadlineS} s for it, then gives its result or error, or says it is still running (call this again).`,
    inputSchema: {
      type: 'object',
      properties: {
        call_id: { type: 'string', description: 'The call id named in the "Still running" answer (call_…).' },
      },
      required: ['call_id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };
}

/** What the deadline answer of a `wait` call tells the model to do next. */
export function stillRunningResult(callId: string, status: string, deadlineS: number, pollUrl: string): McpCallResult {
  return textResult(
    `Still running after ${deadlineS} s: call ${callId} (status ${status}) goes on retrying. ` +
      `To get its result, call ${CALL_STATUS_TOOL} with {"call_id": "${callId}"}; or poll GET ${pollUrl}.`,
  );
}

/**
 * Answers `toolgate-call-status`: the agent's own call only (any other is "not found"), waited on
 * like the REST long-poll (one of the agent's wait slots, woken by the call's finish) up to `waitMs`.
 */
export async function answerCallStatus(
  calls: GetAgentToolCall,
  agent: AgentRef,
  args: unknown,
  options: { waitMs: number; deadlineS: number; signal: AbortSignal },
): Promise<McpCallResult> {
  const callId = (args as { call_id?: unknown } | null | undefined)?.call_id;
  if (typeof callId !== 'string' || callId.length === 0) {
    return textResult(
      `${CALL_STATUS_TOOL} needs {"call_id": "call_…"}: the id named in the "Still running" answer.`,
      true,
    );
  }
  try {
    if (callId.length > CALL_ID_MAX_LENGTH) throw DomainError.notFound(`Tool call "${callId.slice(0, 40)}…"`);
    const call = await calls.execute(agent, callId, options.waitMs, options.signal);
    if (isTerminal(call.status)) return finishedCallResult(call);
    return {
      ...textResult(
        `Still running after ${options.deadlineS} s more: call ${call.id} (status ${call.status}) goes on retrying. ` +
          `Call ${CALL_STATUS_TOOL} with {"call_id": "${call.id}"} again to wait for its result.`,
      ),
      structuredContent: { call_id: call.id, status: call.status },
    };
  } catch (error) {
    if (error instanceof DomainError) return refusalResult(CALL_STATUS_TOOL, error);
    throw error;
  }
}
