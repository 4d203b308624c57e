import { Injectable } from '@nestjs/common';
import { HttpToolsRepository } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';
import { OlderDefinitionCounts } from '../approvals/older-definition-counts.js';
import { httpToolDefinition } from '../approvals/tool-definition.js';
import { type HttpToolRead, httpToolFromRow } from './http-tool-record.js';

@Injectable()
export class GetTool {
  constructor(
    private readonly tools: HttpToolsRepository,
    private readonly olderDefinitions: OlderDefinitionCounts,
  ) {}

  async execute(developerId: string, appId: string, toolId: string): Promise<HttpToolRead> {
    const row = await this.tools.get(developerId, appId, toolId);
    if (!row) throw DomainError.notFound(`Tool "${toolId}"`);
    const older = await this.olderDefinitions.of(appId, 'http', [
      { name: row.name, definition: httpToolDefinition(row) },
    ]);
    return { ...httpToolFromRow(row), installations_on_older_definition: older.get(row.name) ?? 0 };
  }
}
