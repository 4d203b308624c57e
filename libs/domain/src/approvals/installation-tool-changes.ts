import { Injectable } from '@nestjs/common';
import {
  type App,
  ApprovedToolDefinitionsRepository,
  HttpToolsRepository,
  type Installation,
  McpToolsRepository,
} from '../../../persistence/src/index.js';
import {
  type CurrentToolDefinition,
  type ToolDefinitionSeen,
  httpToolDefinition,
  mcpToolDefinition,
  sameDefinition,
} from './tool-definition.js';

/** A tool whose definition changed since its project approved it (approved null: the tool is new since). */
export interface PendingToolChange {
  kind: CurrentToolDefinition['kind'];
  name: string;
  approved: ToolDefinitionSeen | null;
  proposed: ToolDefinitionSeen;
}

/** The tools of an installed app as they are now, and which of them wait for the project's approval. */
@Injectable()
export class InstallationToolChanges {
  constructor(
    private readonly httpTools: HttpToolsRepository,
    private readonly mcpTools: McpToolsRepository,
    private readonly approvals: ApprovedToolDefinitionsRepository,
  ) {}

  /** The definitions of the tools of the app's current mode (of a name an MCP server lists twice, the first copy). */
  async current(app: App): Promise<CurrentToolDefinition[]> {
    if (app.agentToolsMode === 'mcp') {
      const seen = new Set<string>();
      return (await this.mcpTools.list(app.id))
        .filter((tool) => !seen.has(tool.name) && seen.add(tool.name))
        .map((tool) => ({ kind: 'mcp' as const, name: tool.name, definition: mcpToolDefinition(tool) }));
    }
    return (await this.httpTools.listAll(app.id)).map((row) => ({
      kind: 'http' as const,
      name: row.name,
      definition: httpToolDefinition(row),
    }));
  }

  /** The changes the installation's project has not approved yet; none while it approves them automatically. */
  async pending(installation: Installation & { app: App }): Promise<PendingToolChange[]> {
    if (installation.approveChanges === 'auto') return [];
    const [current, approvals] = await Promise.all([
      this.current(installation.app),
      this.approvals.listForInstallations([installation.id]),
    ]);
    const approved = new Map(approvals.map((a) => [`${a.toolKind}\u0000${a.toolName}`, a.definition]));
    return current.flatMap(({ kind, name, definition }) => {
      const was = approved.get(`${kind}\u0000${name}`);
      if (was !== undefined && sameDefinition(was, definition)) return [];
      return [{ kind, name, approved: was === undefined ? null : (was as ToolDefinitionSeen), proposed: definition }];
    });
  }

  /** Approves these definitions as the installation's agents' view of the tools. */
  async approve(installationId: string, tools: readonly CurrentToolDefinition[]): Promise<void> {
    await this.approvals.approve(
      installationId,
      tools.map(({ kind, name, definition }) => ({ toolKind: kind, toolName: name, definition })),
    );
  }
}
