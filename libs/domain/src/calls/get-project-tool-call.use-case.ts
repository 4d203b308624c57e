import { Injectable } from '@nestjs/common';
import { type ToolCallWithAttempts, ToolCallLedger } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';

/** One call of the project's agents with every attempt; another project's call is not found. */
@Injectable()
export class GetProjectToolCall {
  constructor(private readonly calls: ToolCallLedger) {}

  async execute(projectId: string, callId: string): Promise<ToolCallWithAttempts> {
    const call = await this.calls.getForProject(projectId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    return call;
  }
}
