import { Injectable } from '@nestjs/common';
import {
  CallEventLedger,
  type CallEventWithAttempts,
  type ToolCallWithAttempts,
  ToolCallLedger,
} from '../../../../persistence/src/index.js';
import { DomainError } from '../../errors.js';

/** A call of the project's agents with every attempt, and the tool_call.finished events its ends sent the project. */
export type ProjectToolCall = ToolCallWithAttempts & { events: CallEventWithAttempts[] };

/** One call of the project's agents with every attempt; another project's call is not found. */
@Injectable()
export class GetProjectToolCall {
  constructor(
    private readonly calls: ToolCallLedger,
    private readonly events: CallEventLedger,
  ) {}

  async execute(projectId: string, callId: string): Promise<ProjectToolCall> {
    const call = await this.calls.getForProject(projectId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    return { ...call, events: await this.events.listForCall(projectId, callId) };
  }
}
