import type { ToolCall } from '../../../../libs/persistence/src/index.js';
import { EMPTY_RESULT_TEXT, modelContent } from '../../../../libs/domain/src/index.js';

export interface McpCallResult {
  content: Record<string, unknown>[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export function textResult(text: string, isError = false): McpCallResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}

/** The `_meta` key that names the call an answer is about: an agent's MCP client learns every call's id. */
export const CALL_ID_META = 'toolgate/call_id';

/** The answer with the call's id in its `_meta` (beside what an app's MCP server put there). */
export function withCallId(result: McpCallResult, callId: string): McpCallResult {
  const { _meta: meta } = result;
  const kept = meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? meta : {};
  return { ...result, _meta: { ...kept, [CALL_ID_META]: callId } };
}

/**
 * A finished call as an MCP tool result, naming the call in `_meta`: an MCP tool's result passes through unchanged
 * (images included; one nested too deep to keep is its text), but in 1 to 16 content parts (modelContent; no content
 * is its result_text, `OK` or the structured content's JSON); an HTTP tool's JSON object is structuredContent plus
 * its JSON text, any other body text; a failure is an `isError` result the model can read.
 */
export function finishedCallResult(call: ToolCall): McpCallResult {
  return withCallId(resultOf(call), call.id);
}

function resultOf(call: ToolCall): McpCallResult {
  if (call.toolKind === 'mcp') {
    const result = call.result;
    if (result && typeof result === 'object' && !Array.isArray(result)) {
      const error = call.error as { message?: string } | null;
      return inModelParts(result as McpCallResult, call.status === 'succeeded' ? call.resultText : error?.message);
    }
    // kept as text (nested too deep): the model reads what result_text says
    if (call.status === 'succeeded') return textResult(call.resultText ?? '');
  }
  if (call.status === 'succeeded') {
    const result = call.result;
    if (result === null) return textResult(call.resultText ?? 'OK');
    if (typeof result === 'string') return textResult(result);
    const text = JSON.stringify(result);
    return result !== null && typeof result === 'object' && !Array.isArray(result)
      ? { content: [{ type: 'text', text }], structuredContent: result }
      : textResult(text);
  }
  const error = (call.error ?? {}) as { kind?: string; message?: string; http_status?: number };
  if (call.status === 'cancelled')
    return textResult(`The call was cancelled: ${error.message ?? 'no further attempts are made'}.`, true);
  const status = error.http_status ? ` ${error.http_status}` : '';
  return textResult(`The tool failed (${error.kind ?? 'error'}${status}): ${error.message ?? 'no details'}`, true);
}

/** An MCP result as agent hosts take it: 1 to 16 content parts. */
function inModelParts(result: McpCallResult, text: string | null | undefined): McpCallResult {
  const content = Array.isArray(result.content) ? result.content : [];
  if (content.length === 0) return { ...result, content: [{ type: 'text', text: text || EMPTY_RESULT_TEXT }] };
  return { ...result, content: modelContent(content) };
}
