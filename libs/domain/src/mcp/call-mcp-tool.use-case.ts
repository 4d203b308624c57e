import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { type App, type CallOutcome, type ToolCall, ToolCallsRepository } from '../../../persistence/src/index.js';
import { BlockedAddressError } from '../../../outbound-http/src/index.js';
import { type McpCallOptions, McpClients, McpRedirectError, ResponseTooLargeError } from '../../../mcp/src/index.js';
import { CallEvents } from '../../../broadcast/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { agentKey } from '../agents/agent-ref.js';
import { newId } from '../ids.js';
import { capErrorText, describeMcpError, findCause } from './mcp-error.js';
import { McpTargets } from './mcp-targets.js';
import { flattenMcpResult, type McpToolResult } from './result-text.js';

/** The longest deadline of an MCP tool call (the default is MCP_CALL_TIMEOUT_S, 30 s). */
export const MCP_CALL_MAX_TIMEOUT_MS = 120_000;

/**
 * Runs an accepted call of an MCP tool: one attempt, through the app's MCP connection, with a
 * deadline; progress and cancellation pass through. Recorded like any other call.
 */
@Injectable()
export class CallMcpTool {
  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly calls: ToolCallsRepository,
    private readonly clients: McpClients,
    private readonly targets: McpTargets,
    private readonly events: CallEvents,
    private readonly metrics: Metrics,
  ) {}

  /** The deadline of a call: the caller's, else MCP_CALL_TIMEOUT_S; never more than 120 s. */
  timeoutMs(options: Partial<McpCallOptions>): number {
    return Math.min(options.timeoutMs ?? this.env.MCP_CALL_TIMEOUT_S * 1000, MCP_CALL_MAX_TIMEOUT_MS);
  }

  /** Makes the call's one attempt; the call was stored already in progress, `app` is its app as the agent's toolset holds it. */
  async execute(call: ToolCall, app: App, options: Partial<McpCallOptions> = {}): Promise<ToolCall> {
    const timeoutMs = this.timeoutMs(options);
    const sentAt = new Date();
    const started = performance.now();
    let transition: Pick<CallOutcome, 'status' | 'result' | 'resultText' | 'error'>;
    let outcome: string;
    let error: string | null = null;
    try {
      const target = { ...(await this.targets.of(app)), session: agentKey(call) };
      const result = (await this.clients.callTool(target, call.toolName, call.arguments as Record<string, unknown>, {
        timeoutMs,
        signal: options.signal,
        onprogress: options.onprogress,
      })) as McpToolResult & Record<string, unknown>;
      const resultText = flattenMcpResult(result);
      if (result.isError) {
        outcome = 'tool_error';
        error = capErrorText(resultText || 'the tool reported an error');
        transition = { status: 'failed', result, resultText, error: { kind: 'tool_error', message: error } };
      } else {
        outcome = 'success';
        transition = { status: 'succeeded', result, resultText, error: null };
      }
    } catch (caught) {
      ({ outcome, error } = this.classify(caught, options.signal, timeoutMs));
      transition = {
        status: outcome === 'cancelled' ? 'cancelled' : 'failed',
        result: null,
        resultText: null,
        error: { kind: outcome, message: error },
      };
    }
    const now = new Date();
    const durationMs = Math.round(performance.now() - started);
    this.metrics.recordAttempt(outcome, durationMs);
    this.metrics.mcpCalls.inc({ outcome });
    this.metrics.callsFinished.inc({ mode: 'instant', status: transition.status });
    const final: CallOutcome = {
      ...transition,
      finishedAt: now,
      firstAttemptAt: sentAt,
      nextAttemptN: null,
      nextAttemptAt: null,
    };
    const moved = await this.calls.recordAttempt(
      call.id,
      1,
      1,
      { startedAt: sentAt, durationMs, outcome, httpStatus: null, error, responseExcerpt: null },
      final,
      newId('att'),
    );
    await this.events.publishFinished(call.id).catch(() => undefined);
    if (!moved) return (await this.calls.getById(call.id)) ?? call;
    return { ...call, ...final, attemptDeadline: null } as ToolCall;
  }

  private classify(
    error: unknown,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): { outcome: string; error: string } {
    if (signal?.aborted) return { outcome: 'cancelled', error: 'the caller cancelled the call' };
    const blocked = findCause(error, BlockedAddressError);
    if (blocked) return { outcome: 'blocked_address', error: blocked.message };
    const tooLarge = findCause(error, ResponseTooLargeError);
    if (tooLarge) return { outcome: 'response_too_large', error: tooLarge.message };
    const redirect = findCause(error, McpRedirectError);
    if (redirect) return { outcome: 'redirect', error: redirect.message };
    const code = (error as { code?: string }).code;
    if (code === 'REQUEST_TIMEOUT')
      return { outcome: 'timeout', error: `the MCP server did not answer within ${timeoutMs / 1000} s` };
    const name = (error as Error).constructor?.name;
    if (name === 'ProtocolError' || name === 'McpError') {
      return {
        outcome: 'tool_error',
        error: capErrorText(`the MCP server refused the call: ${(error as Error).message}`),
      };
    }
    return { outcome: 'mcp_unavailable', error: `the MCP server could not be reached: ${describeMcpError(error)}` };
  }
}
