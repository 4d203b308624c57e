import { Injectable } from '@nestjs/common';
import {
  type Page,
  type PageRequest,
  type ToolCall,
  type ToolCallFilters,
  ToolCallLedger,
} from '../../../../persistence/src/index.js';

/** The project's call log: the calls of its agents, newest first. */
@Injectable()
export class ListProjectToolCalls {
  constructor(private readonly calls: ToolCallLedger) {}

  execute(projectId: string, filters: ToolCallFilters, page: PageRequest): Promise<Page<ToolCall>> {
    return this.calls.listForProject(projectId, filters, page);
  }
}
