import { Injectable } from '@nestjs/common';
import { type NewToolCall, type ToolCall, ToolCallLedger } from '../../../../persistence/src/index.js';
import { DeliveryQueue, appLane, toolCallJob } from '../../../../queue/src/index.js';
import { Metrics } from '../../../../observability/src/index.js';
import type { AgentTool } from '../../agents/agent-tool.js';
import { type AgentRef, AgentToolsets } from '../../agents/agent-toolsets.js';
import { CallMcpTool } from '../../mcp/call-mcp-tool.use-case.js';
import { McpArgumentChecks } from '../../mcp/mcp-argument-checks.js';
import type { McpCallOptions } from '../../../../mcp/src/index.js';
import { DomainError, assertNoProblems } from '../../errors.js';
import { newId, uuidv7 } from '../../ids.js';
import { attemptDeadline } from '../delivering/call-transitions.js';
import { FirstAttempts } from './first-attempts.js';
import { CallQuotas } from '../../projects/call-quotas.js';
import { DeliveryEngine } from '../../delivery/delivery-engine.js';
import { ToolCallBodies } from './tool-call-request.js';
import { ToolCallDelivery } from '../delivering/tool-call-delivery.js';
import { argumentProblems, mcpArgumentsObject, normalizeArguments } from './tool-arguments.js';

/** A call about to be stored, before its body is built. */
type CallDraft = Omit<NewToolCall, 'bodyEnc' | 'status' | 'attemptDeadline'>;

export interface ToolCallInput {
  tool: string;
  dialog_id: string;
  lead_id?: string | null;
  arguments?: unknown;
}

/**
 * Accepts an agent's call: finds the tool by its agent-facing name, refuses what cannot run now (409) or invalid
 * arguments (422) before anything is sent, and a call over its project's quotas (429, CallQuotas), and stores the
 * call. Then an instant call (an MCP tool's too) opens a slot of its app's delivery limits (429 when none opens in
 * 2 s, before anything is stored), is stored in progress and its one attempt made here; a queued one (wait,
 * background) is stored queued, and its first attempt made by this process right after the answer while it has a
 * free slot (FirstAttempts), else queued.
 */
@Injectable()
export class AcceptToolCall {
  constructor(
    private readonly toolsets: AgentToolsets,
    private readonly calls: ToolCallLedger,
    private readonly engine: DeliveryEngine,
    private readonly toolCalls: ToolCallDelivery,
    private readonly callMcpTool: CallMcpTool,
    private readonly queue: DeliveryQueue,
    private readonly metrics: Metrics,
    private readonly bodies: ToolCallBodies,
    private readonly mcpArguments: McpArgumentChecks,
    private readonly firstAttempts: FirstAttempts,
    private readonly quotas: CallQuotas,
  ) {}

  /**
   * `mcp` passes a deadline, progress and cancellation through to an MCP tool; `toolset` is the agent's toolset when
   * the caller loaded it already for this request (the MCP endpoint does), so it is read once.
   */
  async execute(
    agent: AgentRef,
    input: ToolCallInput,
    mcp: Partial<McpCallOptions> = {},
    toolset?: readonly AgentTool[],
  ): Promise<ToolCall> {
    toolset ??= await this.toolsets.load(agent);
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
    await this.quotas.admit(agent);

    const draft = this.draft(agent, input, target, {
      toolKind: 'http',
      toolName: tool.name,
      executionMode: tool.execution_mode,
      retryWindow: tool.retry_window,
      attemptTimeoutS: tool.attempt_timeout_s,
      handlerUrl: tool.handler_url,
      arguments: normalizeArguments(input.arguments),
    });
    // Built once and stored with the call: every attempt and every replay sends these bytes.
    const { body, bodyEnc } = await this.bodies.build(draft, target.instance);
    if (tool.execution_mode === 'instant') {
      const slot = await this.engine.openNow(appLane(draft.appId), draft.attemptTimeoutS * 1000);
      this.metrics.callsAccepted.inc({ mode: 'instant', kind: 'http' });
      try {
        const call = await this.calls.create(inProgress(draft, bodyEnc));
        const app = target.instance.installation.app;
        return await this.engine.attempt(this.toolCalls, this.toolCalls.prepared(call, app, body, 1), slot);
      } finally {
        slot.release();
      }
    }
    this.metrics.callsAccepted.inc({ mode: tool.execution_mode, kind: 'http' });
    const call = await this.calls.create({ ...draft, bodyEnc, status: 'queued', attemptDeadline: null });
    if (this.firstAttempts.offer(call)) {
      this.metrics.firstAttempts.inc({ by: 'api' });
      return call;
    }
    this.metrics.firstAttempts.inc({ by: 'queue' });
    // The call is stored first: if Redis is away now, the reconciler queues it later.
    await this.queue.enqueue(toolCallJob(call, 1));
    return call;
  }

  private async acceptMcpCall(
    agent: AgentRef,
    input: ToolCallInput,
    target: AgentTool,
    mcp: Partial<McpCallOptions>,
  ): Promise<ToolCall> {
    const args = mcpArgumentsObject(input.arguments);
    if (target.mcp) assertNoProblems(await this.mcpArguments.problems(target.mcp, args));
    await this.quotas.admit(agent);
    const timeoutMs = this.callMcpTool.timeoutMs(target.instance.installation.app, mcp);
    const draft = this.draft(agent, input, target, {
      toolKind: 'mcp',
      toolName: target.instance.toolName,
      executionMode: 'instant',
      retryWindow: null,
      attemptTimeoutS: Math.ceil(timeoutMs / 1000),
      handlerUrl: target.instance.installation.app.mcpUrl,
      arguments: args,
    });
    const slot = await this.engine.openNow(appLane(draft.appId), timeoutMs);
    try {
      const call = await this.calls.create(inProgress(draft, null));
      this.metrics.callsAccepted.inc({ mode: 'instant', kind: 'mcp' });
      return await this.callMcpTool.execute(call, target.instance.installation.app, mcp, slot);
    } finally {
      slot.release();
    }
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
    return {
      ...tool,
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
      acceptedAt: now,
      test: false,
    };
  }
}

/** A call stored with its one attempt about to be made: in progress until the attempt's deadline. */
function inProgress(draft: CallDraft, bodyEnc: string | null): NewToolCall {
  const attemptDeadlineAt = attemptDeadline(draft.attemptTimeoutS * 1000);
  return { ...draft, bodyEnc, status: 'in_progress', attemptDeadline: attemptDeadlineAt };
}
