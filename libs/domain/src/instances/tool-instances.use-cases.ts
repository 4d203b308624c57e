import { Injectable } from '@nestjs/common';
import {
  HttpToolsRepository, McpToolsRepository, type Page, type PageRequest, type ToolInstance, ToolInstancesRepository,
} from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { type ConfiguredParameter, configuredParameterProblems } from '../calls/tool-arguments.js';
import { DomainError, assertNoProblems } from '../errors.js';
import { newId } from '../ids.js';
import { FindInstallation } from '../projects/installations.use-cases.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { httpToolFromRow } from '../tools/http-tool-record.js';
import type { ToolParameter } from '../tools/http-tool.js';
import { type InstanceSettingsInput, instanceSettingsProblems, setsConfiguration } from './tool-instance.js';

export interface CreateToolInstanceInput extends InstanceSettingsInput {
  installation_id: string;
  tool_name: string;
}

interface ResolvedTool {
  kind: 'http' | 'mcp';
  httpToolId: string | null;
  configurable: boolean;
  allowMultiple: boolean;
  parameters: ToolParameter[];
}

function notConfigurable(toolName: string): DomainError {
  return DomainError.conflict(
    `Tool "${toolName}" is not configurable: it takes no configuration, configured_parameters or private_data (MCP tools never do).`,
  );
}

/** Adds a tool of an installed app to an agent, with its configuration and encrypted private data. */
@Injectable()
export class CreateToolInstance {
  constructor(
    private readonly instances: ToolInstancesRepository,
    private readonly httpTools: HttpToolsRepository,
    private readonly mcpTools: McpToolsRepository,
    private readonly findInstallation: FindInstallation,
    private readonly secrets: SecretBox,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(projectId: string, agentId: string, input: CreateToolInstanceInput): Promise<ToolInstance> {
    assertNoProblems(instanceSettingsProblems(input));
    const { app } = await this.findInstallation.execute(projectId, input.installation_id);
    const tool = await this.resolveTool(app.id, app.agentToolsMode, input.tool_name);
    if (setsConfiguration(input) && !tool.configurable) throw notConfigurable(input.tool_name);
    assertNoProblems(configuredParameterProblems(tool.parameters, input.configured_parameters ?? []));
    if (!tool.allowMultiple && (await this.instances.countForAgentTool(agentId, input.installation_id, input.tool_name)) > 0) {
      throw DomainError.conflict(`The agent already has tool "${input.tool_name}", which does not allow multiple instances: edit that instance instead.`);
    }
    const created = await this.instances.create({
      id: newId('ti'),
      projectId,
      agentId,
      installationId: input.installation_id,
      appId: app.id,
      toolKind: tool.kind,
      toolName: input.tool_name,
      httpToolId: tool.httpToolId,
      title: input.title ?? null,
      configuration: (input.configuration ?? {}) as object,
      configuredParameters: (input.configured_parameters ?? []) as object[],
      privateDataEnc: input.private_data !== undefined ? await this.secrets.encryptJson(input.private_data) : null,
      privateDataRequired: input.private_data_required ?? false,
      enabled: input.enabled ?? true,
    });
    await this.toolsets.invalidateAgent({ projectId, agentId });
    return created;
  }

  private async resolveTool(appId: string, mode: string, toolName: string): Promise<ResolvedTool> {
    if (mode === 'mcp') {
      const tool = await this.mcpTools.get(appId, toolName);
      if (!tool || !tool.available) throw unknownTool(toolName, 'MCP server');
      return { kind: 'mcp', httpToolId: null, configurable: false, allowMultiple: false, parameters: [] };
    }
    const row = await this.httpTools.getByName(appId, toolName);
    if (!row) throw unknownTool(toolName, 'HTTP tools');
    const tool = httpToolFromRow(row);
    return { kind: 'http', httpToolId: tool.id, configurable: tool.configurable, allowMultiple: tool.allow_multiple, parameters: tool.parameters };
  }
}

function unknownTool(toolName: string, where: string): DomainError {
  return DomainError.validation([{ path: 'tool_name', message: `the app's current mode has no tool "${toolName}" among its ${where}` }]);
}

@Injectable()
export class ListToolInstances {
  constructor(private readonly instances: ToolInstancesRepository) {}

  async execute(projectId: string, agentId: string, page: PageRequest): Promise<Page<ToolInstance>> {
    return this.instances.list(projectId, agentId, page);
  }
}

/** Edits an instance; private data is kept unless the action says replace or clear. */
@Injectable()
export class UpdateToolInstance {
  constructor(
    private readonly instances: ToolInstancesRepository,
    private readonly secrets: SecretBox,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(projectId: string, agentId: string, instanceId: string, input: InstanceSettingsInput): Promise<ToolInstance> {
    assertNoProblems(instanceSettingsProblems(input));
    const instance = await this.instances.getWithTool(instanceId);
    if (!instance || instance.projectId !== projectId || instance.agentId !== agentId) throw DomainError.notFound(`Tool instance "${instanceId}"`);
    const tool = instance.httpTool ? httpToolFromRow(instance.httpTool) : null;
    if (setsConfiguration(input) && !tool?.configurable) throw notConfigurable(instance.toolName);
    if (input.configured_parameters) assertNoProblems(configuredParameterProblems(tool?.parameters ?? [], input.configured_parameters));
    const action = input.private_data_action ?? 'preserve';
    const updated = await this.instances.update(instanceId, {
      title: input.title,
      configuration: input.configuration as object | undefined,
      configuredParameters: input.configured_parameters as object[] | undefined,
      privateDataRequired: input.private_data_required,
      enabled: input.enabled,
      ...(action === 'replace' ? { privateDataEnc: await this.secrets.encryptJson(input.private_data) } : {}),
      ...(action === 'clear' ? { privateDataEnc: null } : {}),
    });
    await this.toolsets.invalidateAgent({ projectId, agentId });
    return updated;
  }
}

@Injectable()
export class DeleteToolInstance {
  constructor(
    private readonly instances: ToolInstancesRepository,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(projectId: string, agentId: string, instanceId: string): Promise<void> {
    const instance = await this.instances.get(projectId, agentId, instanceId);
    if (!instance) throw DomainError.notFound(`Tool instance "${instanceId}"`);
    await this.instances.delete(instanceId);
    await this.toolsets.invalidateAgent({ projectId, agentId });
  }
}

export type { ConfiguredParameter };
