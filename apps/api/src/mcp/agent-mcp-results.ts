import type { ToolCall } from '../../../../libs/persistence/src/index.js';
import { DomainError, ErrorCode } from '../../../../libs/domain/src/index.js';

export interface McpCallResult {
  content: Record<string, unknown>[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export function textResult(text: string, isError = false): McpCallResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}

/**
 * A finished call as an MCP tool result: an MCP tool's result passes through unchanged (images
 * included); an HTTP tool's JSON object is structuredContent plus its JSON text, any other body
 * text; a failure is an `isError` result the model can read.
 */
export function finishedCallResult(call: ToolCall): McpCallResult {
  if (call.toolKind === 'mcp' && call.result && typeof call.result === 'object') return call.result as McpCallResult;
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

/** A refused call (unknown tool, a state rule, invalid arguments) as text that tells the model what to fix. */
export function refusalResult(toolName: string, error: DomainError): McpCallResult {
  if (error.code === ErrorCode.ValidationFailed && error.errors) {
    const problems = error.errors.map((p) => `${p.path}: ${p.message}`).join('; ');
    return textResult(`The call of "${toolName}" was refused, nothing was sent: ${problems}.`, true);
  }
  return textResult(`The call of "${toolName}" was refused, nothing was sent: ${error.detail}`, true);
}
