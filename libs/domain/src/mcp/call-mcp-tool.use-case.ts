import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import type { App, ToolCall } from '../../../persistence/src/index.js';
import { BlockedAddressError } from '../../../outbound-http/src/index.js';
import {
  type McpCallOptions,
  McpClients,
  McpRedirectError,
  ProtocolError,
  ResponseTooLargeError,
  SdkError,
  SdkErrorCode,
} from '../../../mcp/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { agentKey } from '../agents/agent-ref.js';
import { AttemptRecorder, callAttemptEntry } from '../calls/delivering/attempt-recorder.js';
import { AttemptLog } from '../delivery/attempt-log.js';
import type { DeliverySlot } from '../delivery/delivery-gate.js';
import type { AttemptFailure, AttemptSuccess, MadeAttempt } from '../calls/delivering/call-transitions.js';
import { capErrorText, describeMcpError, findCause } from './mcp-error.js';
import { mcpCallTimeoutS } from '../apps/agent-tools-settings.js';
import { McpTargets } from './mcp-targets.js';
import { type McpToolResult, mcpResultOf } from './result-text.js';

/** The longest deadline of an MCP tool call (the default is the app's mcp_call_timeout_s, else MCP_CALL_TIMEOUT_S). */
export const MCP_CALL_MAX_TIMEOUT_MS = 120_000;

/** What an MCP call's one attempt brought back, before it is recorded. */
type McpAnswer = { success: AttemptSuccess } | { failure: AttemptFailure };

/** An MCP failure as the attempt row and the call's error say it (the same words). */
function mcpFailure(
  outcome: AttemptFailure['outcome'],
  message: string,
  extra: Partial<AttemptFailure> = {},
): McpAnswer {
  return { failure: { outcome, reason: message, message, httpStatus: null, responseExcerpt: null, ...extra } };
}

/**
 * Runs an accepted call of an MCP tool: one attempt, through the app's MCP connection, with a
 * deadline; progress and cancellation pass through. Recorded like any other call, by the AttemptRecorder.
 */
@Injectable()
export class CallMcpTool {
  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly clients: McpClients,
    private readonly targets: McpTargets,
    private readonly recorder: AttemptRecorder,
    private readonly log: AttemptLog,
    private readonly metrics: Metrics,
  ) {}

  /** The deadline of a call: the caller's, else the app's own (or MCP_CALL_TIMEOUT_S); never more than 120 s. */
  timeoutMs(app: Pick<App, 'mcpCallTimeoutS'>, options: Partial<McpCallOptions>): number {
    const appTimeoutMs = mcpCallTimeoutS(app, this.env.MCP_CALL_TIMEOUT_S) * 1000;
    return Math.min(options.timeoutMs ?? appTimeoutMs, MCP_CALL_MAX_TIMEOUT_MS);
  }

  /**
   * Makes the call's one attempt; the call was stored already in progress, `app` is its app as the agent's toolset
   * holds it. `slot` (of the app's delivery limits, DeliveryEngine.openNow) is released once the server answered.
   */
  async execute(call: ToolCall, app: App, options: Partial<McpCallOptions> = {}, slot?: DeliverySlot) {
    const sentAt = new Date();
    const started = performance.now();
    let answer: McpAnswer;
    try {
      await slot?.starting?.();
      answer = await this.send(call, app, options);
    } finally {
      slot?.release();
    }
    const made: MadeAttempt = { call, n: 1, sentAt, durationMs: Math.round(performance.now() - started) };
    this.metrics.mcpCalls.inc({ outcome: 'success' in answer ? 'success' : answer.failure.outcome });
    const recorded =
      'success' in answer
        ? await this.recorder.handleSuccess(made, answer.success)
        : await this.recorder.handleFailure(made, answer.failure);
    // Not a webhook, so not the engine's: told by the same attempt log all deliveries are.
    this.log.record(callAttemptEntry(recorded.call, recorded.attempt));
    return recorded.call;
  }

  /** Sends the call; what the server or the way to it did is an answer, never a throw. */
  private async send(call: ToolCall, app: App, options: Partial<McpCallOptions>): Promise<McpAnswer> {
    if (!app.mcpUrl) return mcpFailure('mcp_unavailable', 'the app has no MCP server URL');
    const timeoutMs = this.timeoutMs(app, options);
    const target = { session: agentKey(call), ...(await this.targets.of(app)) }; // a key after a spread is slow in V8
    let result: McpToolResult & Record<string, unknown>;
    try {
      result = await this.clients.callTool(target, call.toolName, call.arguments as Record<string, unknown>, {
        timeoutMs,
        signal: options.signal,
        onprogress: options.onprogress,
      });
    } catch (error) {
      return this.failureOf(error, options.signal, timeoutMs);
    }
    const kept = mcpResultOf(result);
    if (result.isError) {
      const saidNothing = !result.content?.length && result.structuredContent === undefined;
      return mcpFailure('tool_error', capErrorText(saidNothing ? 'the tool reported an error' : kept.resultText), kept);
    }
    return { success: { ...kept, httpStatus: null, responseExcerpt: null } };
  }

  private failureOf(error: unknown, signal: AbortSignal | undefined, timeoutMs: number): McpAnswer {
    if (signal?.aborted) return mcpFailure('cancelled', 'the caller cancelled the call');
    const blocked = findCause(error, BlockedAddressError);
    if (blocked) return mcpFailure('blocked_address', blocked.message);
    const tooLarge = findCause(error, ResponseTooLargeError);
    if (tooLarge) return mcpFailure('response_too_large', tooLarge.message);
    const redirect = findCause(error, McpRedirectError);
    if (redirect) return mcpFailure('redirect', redirect.message);
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
      return mcpFailure('timeout', `the MCP server did not answer within ${timeoutMs / 1000} s`);
    if (error instanceof ProtocolError) {
      return mcpFailure('tool_error', capErrorText(`the MCP server refused the call: ${(error as Error).message}`));
    }
    return mcpFailure('mcp_unavailable', `the MCP server could not be reached: ${describeMcpError(error)}`);
  }
}
