import { Injectable } from '@nestjs/common';
import {
  AppsRepository, HttpToolsRepository, type InstallationWithApp, InstallationsRepository, McpToolsRepository, type Page, type PageRequest,
  ToolInstancesRepository, isUniqueViolation,
} from '../../../persistence/src/index.js';
import { DomainError, ErrorCode } from '../errors.js';
import { newId } from '../ids.js';
import { httpToolFromRow } from '../tools/http-tool-record.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';

/** Loads an installation of the project, or 404. */
@Injectable()
export class FindInstallation {
  constructor(private readonly installations: InstallationsRepository) {}

  async execute(projectId: string, installationId: string): Promise<InstallationWithApp> {
    const installation = await this.installations.get(projectId, installationId);
    if (!installation) throw DomainError.notFound(`Installation "${installationId}"`);
    return installation;
  }
}

@Injectable()
export class InstallApp {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly apps: AppsRepository,
  ) {}

  async execute(projectId: string, appId: string): Promise<InstallationWithApp> {
    if (!(await this.apps.exists(appId))) throw DomainError.notFound(`App "${appId}"`);
    try {
      return await this.installations.create(newId('inst'), projectId, appId);
    } catch (error) {
      if (isUniqueViolation(error)) throw DomainError.conflict(`App "${appId}" is already installed in this project.`);
      throw error;
    }
  }
}

@Injectable()
export class ListInstallations {
  constructor(private readonly installations: InstallationsRepository) {}

  async execute(projectId: string, page: PageRequest): Promise<Page<InstallationWithApp>> {
    return this.installations.list(projectId, page);
  }
}

/** Removes an installation with every tool instance it gave the project's agents. */
@Injectable()
export class UninstallApp {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly findInstallation: FindInstallation,
    private readonly instances: ToolInstancesRepository,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(projectId: string, installationId: string, confirmed: boolean): Promise<void> {
    const installation = await this.findInstallation.execute(projectId, installationId);
    if (!confirmed) {
      throw new DomainError(
        ErrorCode.ConfirmationRequired,
        `Uninstalling app "${installation.app.name}" removes its tools from every agent of the project: repeat the request with ?confirm=true.`,
      );
    }
    const agents = await this.instances.agentsOfInstallation(installationId);
    await this.installations.delete(installationId);
    await this.toolsets.invalidateAgents(agents);
  }
}

export type Language = 'ru' | 'en';

export interface InstallableTool {
  name: string;
  kind: 'http' | 'mcp';
  title: string;
  description: string;
  response_description: string | null;
  configurable: boolean;
  allow_multiple: boolean;
  execution_mode: string;
  parameters: unknown;
}

/** The tools of the app's current saved mode a project can add, texts in one language; none while the app is disabled. */
@Injectable()
export class ListInstallableTools {
  constructor(
    private readonly findInstallation: FindInstallation,
    private readonly httpTools: HttpToolsRepository,
    private readonly mcpTools: McpToolsRepository,
  ) {}

  async execute(projectId: string, installationId: string, language: Language): Promise<InstallableTool[]> {
    const { app } = await this.findInstallation.execute(projectId, installationId);
    if (!app.agentToolsEnabled) return [];
    if (app.agentToolsMode === 'mcp') {
      const snapshot = await this.mcpTools.list(app.id);
      return snapshot
        .filter((tool) => tool.available)
        .map((tool) => ({
          name: tool.name,
          kind: 'mcp' as const,
          title: tool.title ?? tool.name,
          description: tool.description ?? '',
          response_description: null,
          configurable: false,
          allow_multiple: false,
          execution_mode: 'instant',
          parameters: tool.inputSchema,
        }));
    }
    const tools = (await this.httpTools.listAll(app.id)).map(httpToolFromRow);
    return tools.map((tool) => ({
      name: tool.name,
      kind: 'http' as const,
      title: tool.title[language],
      description: tool.description[language],
      response_description: tool.response_description?.[language] ?? null,
      configurable: tool.configurable,
      allow_multiple: tool.allow_multiple,
      execution_mode: tool.execution_mode,
      parameters: tool.parameters,
    }));
  }
}
