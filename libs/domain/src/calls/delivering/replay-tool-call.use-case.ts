import { Injectable } from '@nestjs/common';
import { type ToolCallWithAttempts, ToolCallLedger } from '../../../../persistence/src/index.js';
import { DeliveryQueue, toolCallJob } from '../../../../queue/src/index.js';
import { DomainError } from '../../errors.js';
import { whyCallStops } from './why-call-stops.js';

/** Delivers a finished call again (same event_id and body bytes) on its tool's schedule, as a new round. */
@Injectable()
export class ReplayToolCall {
  constructor(
    private readonly calls: ToolCallLedger,
    private readonly queue: DeliveryQueue,
  ) {}

  async execute(developerId: string, appId: string, callId: string): Promise<ToolCallWithAttempts> {
    const call = await this.calls.getForApp(developerId, appId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    if (call.toolKind !== 'http') throw DomainError.conflict('Only calls of HTTP tools can be replayed.');
    const target = await this.calls.currentTarget(callId);
    const stops = target && whyCallStops(target);
    if (stops) throw DomainError.conflict(`Tool call "${callId}" cannot be replayed: ${stops}.`);
    const replayed = await this.calls.startNewRound(callId, new Date());
    if (!replayed)
      throw DomainError.conflict(
        `Tool call "${callId}" is still ${call.status}: only a finished call can be replayed.`,
      );
    // Read before queueing: the answer is the call as accepted (queued), not whatever a fast worker made of it.
    const accepted = (await this.calls.getForApp(developerId, appId, callId)) as ToolCallWithAttempts;
    await this.queue.enqueue(toolCallJob(replayed, 1));
    return accepted;
  }
}
