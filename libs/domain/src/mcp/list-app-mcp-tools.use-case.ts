import { Injectable } from '@nestjs/common';
import { type App, type McpToolSnapshot, McpToolsRepository } from '../../../persistence/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { OlderDefinitionCounts } from '../approvals/older-definition-counts.js';
import { mcpToolDefinition } from '../approvals/tool-definition.js';

/** The app's MCP snapshot, and per tool name how many installations' agents still see an older definition of it. */
export interface AppMcpTools {
  app: App;
  tools: McpToolSnapshot[];
  olderDefinitions: ReadonlyMap<string, number>;
}

@Injectable()
export class ListAppMcpTools {
  constructor(
    private readonly findOwnedApp: FindOwnedApp,
    private readonly snapshots: McpToolsRepository,
    private readonly olderDefinitionCounts: OlderDefinitionCounts,
  ) {}

  async execute(developerId: string, appId: string): Promise<AppMcpTools> {
    const app = await this.findOwnedApp.execute(developerId, appId);
    const tools = await this.snapshots.list(appId);
    // Of a name listed twice, the first copy is the one installations approve.
    const first = tools.filter((tool, index) => tools.findIndex((t) => t.name === tool.name) === index);
    const current = first.map((tool) => ({ name: tool.name, definition: mcpToolDefinition(tool) }));
    return { app, tools, olderDefinitions: await this.olderDefinitionCounts.of(appId, 'mcp', current) };
  }
}
