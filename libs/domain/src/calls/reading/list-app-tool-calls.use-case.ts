import { Injectable } from '@nestjs/common';
import {
  type Page,
  type PageRequest,
  type ToolCall,
  type ToolCallFilters,
  ToolCallLedger,
} from '../../../../persistence/src/index.js';
import { FindOwnedApp } from '../../apps/find-owned-app.js';

@Injectable()
export class ListAppToolCalls {
  constructor(
    private readonly calls: ToolCallLedger,
    private readonly findOwnedApp: FindOwnedApp,
  ) {}

  async execute(
    developerId: string,
    appId: string,
    filters: ToolCallFilters,
    page: PageRequest,
  ): Promise<Page<ToolCall>> {
    await this.findOwnedApp.execute(developerId, appId);
    return this.calls.listForApp(developerId, appId, filters, page);
  }
}
