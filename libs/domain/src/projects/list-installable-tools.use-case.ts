import { Injectable } from '@nestjs/common';
import { HttpToolsRepository, McpToolsRepository } from '../../../persistence/src/index.js';
import { InstallationToolChanges } from '../approvals/installation-tool-changes.js';
import { httpToolFromRow } from '../tools/http-tool-record.js';
import { FindInstallation } from './find-installation.use-case.js';
import type { Language } from './language.js';

export interface InstallableTool {
  name: string;
  kind: 'http' | 'mcp';
  title: string;
  description: string;
  responseDescription: string | null;
  configurable: boolean;
  allowMultiple: boolean;
  executionMode: string;
  parameters: unknown;
  /** The tool changed since the project approved it (or is new since): agents see the approved definition. */
  changePending: boolean;
}

/** The tools of the app's current saved mode a project can add, texts in one language; none while the app is disabled. */
@Injectable()
export class ListInstallableTools {
  constructor(
    private readonly findInstallation: FindInstallation,
    private readonly httpTools: HttpToolsRepository,
    private readonly mcpTools: McpToolsRepository,
    private readonly toolChanges: InstallationToolChanges,
  ) {}

  async execute(projectId: string, installationId: string, language: Language): Promise<InstallableTool[]> {
    const installation = await this.findInstallation.execute(projectId, installationId);
    const { app } = installation;
    if (!app.agentToolsEnabled) return [];
    const pending = new Set((await this.toolChanges.pending(installation)).map((change) => change.name));
    if (app.agentToolsMode === 'mcp') {
      const snapshot = await this.mcpTools.list(app.id);
      return snapshot
        .filter((tool) => tool.available)
        .map((tool) => ({
          name: tool.name,
          kind: 'mcp' as const,
          title: tool.title ?? tool.name,
          description: tool.description ?? '',
          responseDescription: null,
          configurable: false,
          allowMultiple: false,
          executionMode: 'instant',
          parameters: tool.inputSchema,
          changePending: pending.has(tool.name),
        }));
    }
    const tools = (await this.httpTools.listAll(app.id)).map(httpToolFromRow);
    return tools.map((tool) => ({
      name: tool.name,
      kind: 'http' as const,
      title: tool.title[language],
      description: tool.description[language],
      responseDescription: tool.response_description?.[language] ?? null,
      configurable: tool.configurable,
      allowMultiple: tool.allow_multiple,
      executionMode: tool.execution_mode,
      parameters: tool.parameters,
      changePending: pending.has(tool.name),
    }));
  }
}
