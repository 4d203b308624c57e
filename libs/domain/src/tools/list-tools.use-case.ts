import { Injectable } from '@nestjs/common';
import { HttpToolsRepository, type Page, type PageRequest } from '../../../persistence/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { OlderDefinitionCounts } from '../approvals/older-definition-counts.js';
import { httpToolDefinition } from '../approvals/tool-definition.js';
import { type HttpToolRead, httpToolFromRow } from './http-tool-record.js';

@Injectable()
export class ListTools {
  constructor(
    private readonly tools: HttpToolsRepository,
    private readonly findOwnedApp: FindOwnedApp,
    private readonly olderDefinitions: OlderDefinitionCounts,
  ) {}

  async execute(developerId: string, appId: string, page: PageRequest): Promise<Page<HttpToolRead>> {
    await this.findOwnedApp.execute(developerId, appId);
    const { items, nextAfter } = await this.tools.list(developerId, appId, page);
    const older = await this.olderDefinitions.of(
      appId,
      'http',
      items.map((row) => ({ name: row.name, definition: httpToolDefinition(row) })),
    );
    return {
      items: items.map((row) => ({
        ...httpToolFromRow(row),
        installations_on_older_definition: older.get(row.name) ?? 0,
      })),
      nextAfter,
    };
  }
}
