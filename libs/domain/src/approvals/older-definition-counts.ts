import { Injectable } from '@nestjs/common';
import { ApprovedToolDefinitionsRepository, type ToolKind } from '../../../persistence/src/index.js';
import { type ToolDefinitionSeen, sameDefinition } from './tool-definition.js';

/** For the developer: how many installations' agents still see an older definition of each of the app's tools. */
@Injectable()
export class OlderDefinitionCounts {
  constructor(private readonly approvals: ApprovedToolDefinitionsRepository) {}

  /** Per tool name (of `current`, the tools as they are now), the installations that approved another definition. */
  async of(
    appId: string,
    kind: ToolKind,
    current: readonly { name: string; definition: ToolDefinitionSeen }[],
  ): Promise<Map<string, number>> {
    const now = new Map(current.map((tool) => [tool.name, tool.definition]));
    const counts = new Map<string, number>();
    for (const row of await this.approvals.countsForApp(appId, kind)) {
      const definition = now.get(row.toolName);
      if (definition === undefined || sameDefinition(row.definition, definition)) continue;
      counts.set(row.toolName, (counts.get(row.toolName) ?? 0) + row.installations);
    }
    return counts;
  }
}
