import { Injectable, Logger } from '@nestjs/common';
import {
  type NewToolCall, type Page, type PageRequest, type ToolCall, type ToolCallFilters, type ToolCallWithAttempts, ToolCallsRepository,
} from '../../../persistence/src/index.js';
import { CallEvents, type CallProgress, DeliveryQueue } from '../../../queue/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import type { AgentTool } from '../agents/agent-toolset.js';
import { type AgentRef, AgentToolsets } from '../agents/agent-toolsets.js';
import { CallMcpTool } from '../mcp/call-mcp-tool.use-case.js';
import type { McpCallOptions } from '../../../mcp/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { DomainError, assertNoProblems } from '../errors.js';
import { newId, uuidv7 } from '../ids.js';
import { ATTEMPT_DEADLINE_MARGIN_MS, DeliverAttempt } from './deliver-attempt.use-case.js';
import { toolCallBody } from './tool-call-body.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { argumentProblems, normalizeArguments } from './tool-arguments.js';

export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;
export const isTerminal = (status: string) => (TERMINAL_STATUSES as readonly string[]).includes(status);

export type { AgentRef };

/** The agent's tools, as the model sees them (callable ones only). */
@Injectable()
export class ListAgentTools {
  constructor(private readonly toolsets: AgentToolsets) {}

  async execute(agent: AgentRef): Promise<AgentTool[]> {
    return (await this.toolsets.load(agent)).filter((tool) => tool.refusal === null);
  }
}

export interface ToolCallInput {
  tool: string;
  dialog_id: string;
  lead_id?: string | null;
  arguments?: unknown;
}

/**
 * Accepts an agent's call: finds the tool by its agent-facing name, refuses what cannot run now
 * (409) or invalid arguments (422) before anything is sent, records the call, then delivers it
 * (instant: here, one attempt) or queues it (wait, background).
 */
@Injectable()
export class AcceptToolCall {
  private readonly logger = new Logger('ToolCalls');

  constructor(
    private readonly toolsets: AgentToolsets,
    private readonly calls: ToolCallsRepository,
    private readonly deliverAttempt: DeliverAttempt,
    private readonly callMcpTool: CallMcpTool,
    private readonly queue: DeliveryQueue,
    private readonly metrics: Metrics,
    private readonly secrets: SecretBox,
  ) {}

  /** `mcp` passes a deadline, progress and cancellation through to an MCP tool. */
  async execute(agent: AgentRef, input: ToolCallInput, mcp: Partial<McpCallOptions> = {}): Promise<ToolCall> {
    const toolset = await this.toolsets.load(agent);
    const target = toolset.find((tool) => tool.name === input.tool);
    if (!target) {
      const callable = toolset.filter((t) => t.refusal === null).map((t) => t.name);
      throw DomainError.validation([
        { path: 'tool', message: `the agent has no tool "${input.tool}"${callable.length ? `; it has: ${callable.join(', ')}` : ''}` },
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
    const call = await this.calls.create(draft);
    // The call is stored first: if Redis is away now, the reconciler queues it later.
    await this.queue.enqueue({ callId: call.id, appId: call.appId, timeoutS: call.attemptTimeoutS, round: 1, n: 1 }, 0).catch((error: Error) => {
      this.logger.warn(`call ${call.id}: not queued (${error.message}); the reconciler will`);
    });
    return call;
  }

  private async acceptMcpCall(agent: AgentRef, input: ToolCallInput, target: AgentTool, mcp: Partial<McpCallOptions>): Promise<ToolCall> {
    const args = input.arguments ?? {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      throw DomainError.validation([{ path: 'arguments', message: 'must be an object of argument names to values' }]);
    }
    const timeoutMs = this.callMcpTool.timeoutMs(mcp);
    const call = await this.calls.create({
      ...this.draft(agent, input, target, {
      toolKind: 'mcp',
      toolName: target.instance.toolName,
      executionMode: 'instant',
      retryWindow: null,
      attemptTimeoutS: Math.ceil(timeoutMs / 1000),
      handlerUrl: target.instance.installation.app.mcpUrl,
      arguments: args as object,
      }),
      // Stored in progress: the attempt is made right here.
      status: 'in_progress',
      attemptDeadline: new Date(Date.now() + timeoutMs + ATTEMPT_DEADLINE_MARGIN_MS),
    });
    this.metrics.callsAccepted.inc({ mode: 'instant', kind: 'mcp' });
    return this.callMcpTool.execute(call, target.instance.installation.app, mcp);
  }

  /**
   * An instant call: the API makes its one attempt itself, right away. The call is stored already
   * in progress with its body (built here, the send time: private data decrypted now), and the app
   * and instance come from the agent's toolset, so the attempt costs two statements.
   */
  private async deliverNow(draft: NewToolCall, target: AgentTool): Promise<ToolCall> {
    const instance = target.instance;
    const privateData = instance.privateDataEnc ? await this.secrets.decryptJson(instance.privateDataEnc) : {};
    const body = toolCallBody(draft as unknown as ToolCall, instance.configuration, privateData);
    const call = await this.calls.create({
      ...draft,
      status: 'in_progress',
      bodyEnc: await this.secrets.encrypt(body),
      attemptDeadline: new Date(Date.now() + draft.attemptTimeoutS * 1000 + ATTEMPT_DEADLINE_MARGIN_MS),
    });
    return this.deliverAttempt.deliverClaimed(call, instance.installation.app, body, 1);
  }

  /** An accepted call, due now as attempt 1 of round 1, with a fresh UUIDv7 event id. */
  private draft(
    agent: AgentRef,
    input: ToolCallInput,
    target: AgentTool,
    tool: Pick<NewToolCall, 'toolKind' | 'toolName' | 'executionMode' | 'retryWindow' | 'attemptTimeoutS' | 'handlerUrl' | 'arguments'>,
  ): NewToolCall {
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
      status: 'queued',
      round: 1,
      nextAttemptN: 1,
      nextAttemptAt: now,
      acceptedAt: now,
    };
  }
}

/** One of the agent's calls; with `waitMs`, answers as soon as it finishes or the time is up. */
@Injectable()
export class GetAgentToolCall {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly events: CallEvents,
  ) {}

  async execute(agent: AgentRef, callId: string, waitMs = 0, signal?: AbortSignal): Promise<ToolCall> {
    let call = await this.calls.getForAgent(agent.projectId, agent.agentId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    const until = Date.now() + waitMs;
    // Pub/sub answers at once; the re-read every second covers a missed message.
    while (!isTerminal(call.status) && Date.now() < until && !signal?.aborted) {
      await this.events.waitForFinish(callId, Math.min(1000, until - Date.now()), signal);
      call = (await this.calls.getForAgent(agent.projectId, agent.agentId, callId)) as ToolCall;
    }
    return call;
  }
}

/** Waits for a call to finish (or the deadline, or the caller giving up), passing its retry progress on. */
@Injectable()
export class AwaitToolCall {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly events: CallEvents,
  ) {}

  async execute(call: ToolCall, options: { deadlineMs: number; signal?: AbortSignal; onProgress?: (progress: CallProgress) => void }): Promise<ToolCall> {
    const until = Date.now() + options.deadlineMs;
    const stopProgress = options.onProgress ? await this.events.onProgress(call.id, options.onProgress) : () => undefined;
    try {
      let current = call;
      while (!isTerminal(current.status) && Date.now() < until && !options.signal?.aborted) {
        await this.events.waitForFinish(call.id, Math.min(1000, until - Date.now()), options.signal);
        current = (await this.calls.getById(call.id)) ?? current;
      }
      return current;
    } finally {
      stopProgress();
    }
  }
}

/** Stops further attempts of an active call (an attempt already on the wire still completes). */
@Injectable()
export class CancelToolCall {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly queue: DeliveryQueue,
    private readonly events: CallEvents,
    private readonly metrics: Metrics,
  ) {}

  async execute(agent: AgentRef, callId: string, reason = 'cancelled by the agent'): Promise<ToolCall> {
    const call = await this.calls.getForAgent(agent.projectId, agent.agentId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    if (!(await this.calls.cancel(callId, { kind: 'cancelled', message: reason }, new Date()))) {
      throw DomainError.conflict(`Tool call "${callId}" already finished (${call.status}): there is nothing to cancel.`);
    }
    this.metrics.callsFinished.inc({ mode: call.executionMode, status: 'cancelled' });
    if (call.nextAttemptN) await this.queue.remove({ callId, round: call.round, n: call.nextAttemptN });
    await this.events.publishFinished(callId).catch(() => undefined);
    return (await this.calls.getById(callId)) as ToolCall;
  }
}

@Injectable()
export class ListAppToolCalls {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly findOwnedApp: FindOwnedApp,
  ) {}

  async execute(developerId: string, appId: string, filters: ToolCallFilters, page: PageRequest): Promise<Page<ToolCall>> {
    await this.findOwnedApp.execute(developerId, appId);
    return this.calls.listForApp(developerId, appId, filters, page);
  }
}

@Injectable()
export class GetAppToolCall {
  constructor(private readonly calls: ToolCallsRepository) {}

  async execute(developerId: string, appId: string, callId: string): Promise<ToolCallWithAttempts> {
    const call = await this.calls.getForApp(developerId, appId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    return call;
  }
}

/** Delivers a finished call again (same event_id and body bytes) on its tool's schedule, as a new round. */
@Injectable()
export class ReplayToolCall {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly queue: DeliveryQueue,
  ) {}

  async execute(developerId: string, appId: string, callId: string): Promise<ToolCallWithAttempts> {
    const call = await this.calls.getForApp(developerId, appId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    if (call.toolKind !== 'http') throw DomainError.conflict('Only calls of HTTP tools can be replayed.');
    const replayed = await this.calls.startNewRound(callId, new Date());
    if (!replayed) throw DomainError.conflict(`Tool call "${callId}" is still ${call.status}: only a finished call can be replayed.`);
    await this.queue.enqueue({ callId, appId, timeoutS: replayed.attemptTimeoutS, round: replayed.round, n: 1 }, 0).catch(() => undefined);
    return (await this.calls.getForApp(developerId, appId, callId)) as ToolCallWithAttempts;
  }
}

/**
 * Nothing is lost: re-queues calls whose attempt is overdue (Redis lost the job) or stuck in
 * progress past its deadline (a worker died). Job ids are deterministic, so a job still waiting
 * in Redis is not doubled. An instant call stuck in progress ends failed: instant never retries.
 */
@Injectable()
export class ReconcileToolCalls {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly queue: DeliveryQueue,
    private readonly events: CallEvents,
    private readonly metrics: Metrics,
  ) {}

  async execute(graceMs = 2000, limit = 500): Promise<{ requeued: number; failed: number }> {
    const now = new Date();
    let requeued = 0;
    let failed = 0;
    for (const call of await this.calls.findOverdue(now, graceMs, limit)) {
      if (call.executionMode === 'instant') {
        const message = 'the API process stopped before the attempt finished; instant calls are not retried';
        if (await this.calls.failStuck(call.id, { kind: 'timeout', message }, now, graceMs)) {
          failed += 1;
          this.metrics.reconcilerFailed.inc();
          this.metrics.callsFinished.inc({ mode: 'instant', status: 'failed' });
          await this.events.publishFinished(call.id).catch(() => undefined);
        }
        continue;
      }
      if (call.nextAttemptN === null) continue;
      await this.queue.enqueue({ callId: call.id, appId: call.appId, timeoutS: call.attemptTimeoutS, round: call.round, n: call.nextAttemptN }, 0);
      requeued += 1;
      this.metrics.reconcilerRequeued.inc();
    }
    return { requeued, failed };
  }
}
