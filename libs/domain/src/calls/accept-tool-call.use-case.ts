import { Injectable } from '@nestjs/common';
import { type NewToolCall, type ToolCall, ToolCallsRepository } from '../../../persistence/src/index.js';
import { DeliveryQueue } from '../../../queue/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import type { AgentTool } from '../agents/agent-tool.js';
import { type AgentRef, AgentToolsets } from '../agents/agent-toolsets.js';
import { CallMcpTool } from '../mcp/call-mcp-tool.use-case.js';
import { McpArgumentChecks } from '../mcp/mcp-argument-checks.js';
import type { McpCallOptions } from '../../../mcp/src/index.js';
import { DomainError, assertNoProblems } from '../errors.js';
import { newId, uuidv7 } from '../ids.js';
import { attemptDeadline } from './call-transitions.js';
import { DeliverAttempt } from './deliver-attempt.use-case.js';
import { FirstAttempts } from './first-attempts.js';
import { ToolCallBodies } from './tool-call-body.js';
import { argumentProblems, isNoArguments, normalizeArguments } from './tool-arguments.js';

/** A call about to be stored, with what its body needs. */
type CallDraft = NewToolCall & { acceptedAt: Date; leadId: string | null };

export interface ToolCallInput {
  tool: string;
  dialog_id: string;
  lead_id?: string | null;
  arguments?: unknown;
}

/**
 * Accepts an agent's call: finds the tool by its agent-facing name, refuses what cannot run now
 * (409) or invalid arguments (422) before anything is sent, records the call, then delivers it
 * (instant: here, one attempt) or queues it (wait, background: its first attempt made here while a slot is free).
 */
@Injectable()
export class AcceptToolCall {
  constructor(
    private readonly toolsets: AgentToolsets,
    private readonly calls: ToolCallsRepository,
    private readonly deliverAttempt: DeliverAttempt,
    private readonly callMcpTool: CallMcpTool,
    private readonly queue: DeliveryQueue,
    private readonly metrics: Metrics,
    private readonly bodies: ToolCallBodies,
    private readonly mcpArguments: McpArgumentChecks,
    private readonly firstAttempts: FirstAttempts,
  ) {}

  /** `mcp` passes a deadline, progress and cancellation through to an MCP tool. */
  async execute(agent: AgentRef, input: ToolCallInput, mcp: Partial<McpCallOptions> = {}): Promise<ToolCall> {
    const toolset = await this.toolsets.load(agent);
    const target = toolset.find((tool) => tool.name === input.tool);
    if (!target) {
      const callable = toolset.filter((t) => t.refusal === null).map((t) => t.name);
      throw DomainError.validation([
        {
          path: 'tool',
          message: `the agent has no tool "${input.tool}"${callable.length ? `; it has: ${callable.join(', ')}` : ''}`,
        },
      ]);
    }
    if (target.refusal) throw DomainError.conflict(`Tool "${input.tool}" cannot be called now: ${target.refusal}.`);
    if (target.mcp) return this.acceptMcpCall(agent, input, target, mcp);
    const tool = target.tool;
    if (!tool) throw DomainError.conflict(`Tool "${input.tool}" cannot be called now.`);
    assertNoProblems(argumentProblems(target.parameters, input.arguments));

    const draft = this.draft(agent, input, target, {
      toolKind: 'http',
      toolName: tool.name,
      executionMode: tool.execution_mode,
      retryWindow: tool.retry_window,
      attemptTimeoutS: tool.attempt_timeout_s,
      handlerUrl: tool.handler_url,
      arguments: normalizeArguments(input.arguments),
    });
    this.metrics.callsAccepted.inc({ mode: tool.execution_mode, kind: 'http' });
    if (tool.execution_mode === 'instant') return this.deliverNow(draft, target);
    // Built and stored with the call: every attempt sends these bytes, and the worker's claim needs no more.
    const { body, bodyEnc } = await this.bodies.build(draft, target.instance);
    if (this.firstAttempts.take(draft.appId)) return this.attemptHere(draft, target, body, bodyEnc);
    const call = await this.calls.create({ bodyEnc, ...draft });
    this.metrics.firstAttempts.inc({ by: 'queue' });
    // The call is stored first: if Redis is away now, the reconciler queues it later.
    await this.queue.enqueueAttempt(call, 1);
    return call;
  }

  private async acceptMcpCall(
    agent: AgentRef,
    input: ToolCallInput,
    target: AgentTool,
    mcp: Partial<McpCallOptions>,
  ): Promise<ToolCall> {
    const args = isNoArguments(input.arguments) ? {} : input.arguments;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw DomainError.validation([{ path: 'arguments', message: 'must be an object of argument names to values' }]);
    }
    if (target.mcp) assertNoProblems(this.mcpArguments.problems(target.mcp, args as Record<string, unknown>));
    const timeoutMs = this.callMcpTool.timeoutMs(mcp);
    const call = await this.calls.createInstant({
      attemptDeadline: attemptDeadline(timeoutMs),
      ...this.draft(agent, input, target, {
        toolKind: 'mcp',
        toolName: target.instance.toolName,
        executionMode: 'instant',
        retryWindow: null,
        attemptTimeoutS: Math.ceil(timeoutMs / 1000),
        handlerUrl: target.instance.installation.app.mcpUrl,
        arguments: args,
      }),
      // Stored in progress: the attempt is made right here.
      status: 'in_progress',
    });
    this.metrics.callsAccepted.inc({ mode: 'instant', kind: 'mcp' });
    return this.callMcpTool.execute(call, target.instance.installation.app, mcp);
  }

  /**
   * An instant call: the API makes its one attempt itself, right away. The call is stored in progress
   * with its body (built here, the send time: private data decrypted now), in the same write as its
   * attempt when the attempt is quick (`createInstant`), and the app and instance come from the agent's
   * toolset, so the call costs one statement (two when its attempt runs long).
   */
  private async deliverNow(draft: CallDraft, target: AgentTool): Promise<ToolCall> {
    const instance = target.instance;
    const { body, bodyEnc } = await this.bodies.build(draft, instance);
    const call = await this.calls.createInstant(inProgress(draft, bodyEnc));
    return this.deliverAttempt.execute({ call, app: instance.installation.app, body, n: 1 });
  }

  /**
   * A queued call whose first attempt this process makes (FirstAttempts): stored claimed, in progress until the
   * attempt's deadline. It is answered as queued (the 202), which it is until its attempt starts after the answer.
   */
  private async attemptHere(draft: CallDraft, target: AgentTool, body: string, bodyEnc: string): Promise<ToolCall> {
    let call: ToolCall;
    try {
      call = await this.calls.create(inProgress(draft, bodyEnc));
    } catch (error) {
      this.firstAttempts.giveBack(draft.appId);
      throw error;
    }
    // Made here unless storing took too long (then the reconciler queues it): counted as the queue's then.
    const started = this.firstAttempts.start({ call, app: target.instance.installation.app, body, n: 1 });
    this.metrics.firstAttempts.inc({ by: started ? 'api' : 'queue' });
    return { ...call, status: 'queued' };
  }

  /** An accepted call, due now as attempt 1 of round 1, with a fresh UUIDv7 event id. */
  private draft(
    agent: AgentRef,
    input: ToolCallInput,
    target: AgentTool,
    tool: Pick<
      NewToolCall,
      'toolKind' | 'toolName' | 'executionMode' | 'retryWindow' | 'attemptTimeoutS' | 'handlerUrl' | 'arguments'
    >,
  ): CallDraft {
    const now = new Date();
    // The tool's fields last: V8 adds a key to an object made by a leading spread on a slow path (~1 µs each).
    return {
      id: newId('call'),
      eventId: uuidv7(now.getTime()),
      appId: target.instance.appId,
      installationId: target.instance.installationId,
      projectId: agent.projectId,
      agentId: agent.agentId,
      toolInstanceId: target.instance.id,
      agentToolName: target.name,
      dialogId: input.dialog_id,
      leadId: input.lead_id ?? null,
      status: 'queued',
      round: 1,
      nextAttemptN: 1,
      nextAttemptAt: now,
      acceptedAt: now,
      ...tool,
    };
  }
}

/** A call stored with its attempt already under way: in progress until the attempt's deadline, with its body. */
function inProgress(draft: CallDraft, bodyEnc: string): NewToolCall {
  return { bodyEnc, attemptDeadline: attemptDeadline(draft.attemptTimeoutS * 1000), ...draft, status: 'in_progress' };
}
