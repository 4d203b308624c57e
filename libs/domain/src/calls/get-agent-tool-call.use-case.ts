import { Injectable } from '@nestjs/common';
import { type ToolCall, ToolCallsRepository } from '../../../persistence/src/index.js';
import type { AgentRef } from '../agents/agent-toolsets.js';
import { DomainError } from '../errors.js';
import { AwaitToolCall } from './await-tool-call.use-case.js';

/** One of the agent's calls; with `waitMs`, answers as soon as it finishes or the time is up. */
@Injectable()
export class GetAgentToolCall {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly awaitToolCall: AwaitToolCall,
  ) {}

  async execute(agent: AgentRef, callId: string, waitMs = 0, signal?: AbortSignal): Promise<ToolCall> {
    const call = await this.calls.getForAgent(agent.projectId, agent.agentId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    return this.awaitToolCall.execute(call, { deadlineMs: waitMs, signal });
  }
}
