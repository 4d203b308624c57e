import { Injectable } from '@nestjs/common';
import { type ToolCall, ToolCallLedger } from '../../../../persistence/src/index.js';
import { DeliveryQueue, toolCallJob } from '../../../../queue/src/index.js';
import type { AgentRef } from '../../agents/agent-toolsets.js';
import { DomainError } from '../../errors.js';
import { FinishedCalls } from './finished-calls.js';

/** Stops further attempts of an active call (an attempt already on the wire still completes). */
@Injectable()
export class CancelToolCall {
  constructor(
    private readonly calls: ToolCallLedger,
    private readonly queue: DeliveryQueue,
    private readonly finished: FinishedCalls,
  ) {}

  async execute(agent: AgentRef, callId: string, reason = 'cancelled by the agent'): Promise<ToolCall> {
    const call = await this.calls.getForAgent(agent.projectId, agent.agentId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    const cancelled = await this.calls.cancel(callId, { kind: 'cancelled', message: reason }, new Date());
    if (!cancelled) {
      throw DomainError.conflict(
        `Tool call "${callId}" already finished (${call.status}): there is nothing to cancel.`,
      );
    }
    if (call.nextAttemptN) await this.queue.remove(toolCallJob(call, call.nextAttemptN));
    this.finished.announce(cancelled, 'cancelled');
    return cancelled;
  }
}
