import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { DomainError, ErrorCode } from '../../../../libs/domain/src/index.js';
import { type McpCallResult, textResult } from './agent-mcp-results.js';

/**
 * The one mapping of the domain's refusals (an unknown tool or call, a state rule, invalid input, too many waits) to
 * what an MCP client is answered: inside a `tools/call`, a tool result the model can read and act on; for any other
 * request (`tasks/*`), a JSON-RPC error: -32602 for what the params name wrongly, -32600 for the rest.
 */
export function refusalText(error: DomainError): string {
  if (error.code === ErrorCode.ValidationFailed && error.errors) {
    return `${error.errors.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}.`;
  }
  return error.detail;
}

/** A refusal as an `isError` tool result, `${subject}: ${why}`. */
export function refusalResult(subject: string, error: DomainError): McpCallResult {
  return textResult(`${subject}: ${refusalText(error)}`, true);
}

/** A refused `tools/call`: nothing was stored or sent, and the model is told what to fix. */
export function refusedCallResult(toolName: string, error: DomainError): McpCallResult {
  return refusalResult(`The call of "${toolName}" was refused, nothing was sent`, error);
}

const PARAMS_CODES: ReadonlySet<ErrorCode> = new Set([
  ErrorCode.NotFound,
  ErrorCode.Conflict,
  ErrorCode.ValidationFailed,
]);

/** A refusal as the JSON-RPC error of a request; `saying` gives the words before the reason, by error code. */
export function refusalError(error: unknown, saying: Partial<Record<ErrorCode, string>> = {}): unknown {
  if (!(error instanceof DomainError)) return error;
  const code = PARAMS_CODES.has(error.code) ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InvalidRequest;
  const before = saying[error.code];
  return new ProtocolError(code, before ? `${before}: ${refusalText(error)}` : refusalText(error));
}
