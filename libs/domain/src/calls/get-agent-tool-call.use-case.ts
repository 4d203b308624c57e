import { Injectable } from '@nestjs/common';
import { type ToolCall, ToolCallsRepository } from '../../../persistence/src/index.js';
import { CallEvents } from '../../../queue/src/index.js';
import type { AgentRef } from '../agents/agent-toolsets.js';
import { DomainError } from '../errors.js';
import { isTerminal } from './call-status.js';

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
