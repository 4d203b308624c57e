import { Injectable } from '@nestjs/common';
import { type ToolCallWithAttempts, ToolCallLedger } from '../../../../persistence/src/index.js';
import { DomainError } from '../../errors.js';

@Injectable()
export class GetAppToolCall {
  constructor(private readonly calls: ToolCallLedger) {}

  async execute(developerId: string, appId: string, callId: string): Promise<ToolCallWithAttempts> {
    const call = await this.calls.getForApp(developerId, appId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    return call;
  }
}
