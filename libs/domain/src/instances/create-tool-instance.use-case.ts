import { Injectable } from '@nestjs/common';
import {
  ApprovedToolDefinitionsRepository,
  HttpToolsRepository,
  McpToolsRepository,
  type ToolInstance,
  ToolInstancesRepository,
} from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { type ToolDefinitionSeen, httpToolDefinition, mcpToolDefinition } from '../approvals/tool-definition.js';
import { configuredParameterProblems } from '../calls/accepting/tool-arguments.js';
import { DomainError, assertNoProblems } from '../errors.js';
import { newId } from '../ids.js';
import { FindInstallation } from '../projects/find-installation.use-case.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { refuseSwitchedOffApp } from '../apps/refuse-switched-off-app.js';
import { httpToolFromRow } from '../tools/http-tool-record.js';
import type { ToolParameter } from '../tools/http-tool.js';
import { notConfigurable } from './not-configurable.js';
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
  definition: ToolDefinitionSeen;
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
    private readonly approvals: ApprovedToolDefinitionsRepository,
  ) {}

  async execute(projectId: string, agentId: string, input: CreateToolInstanceInput): Promise<ToolInstance> {
    assertNoProblems(instanceSettingsProblems(input));
    const { app } = await this.findInstallation.execute(projectId, input.installation_id);
    refuseSwitchedOffApp(app, 'its tools cannot be given to an agent');
    const tool = await this.resolveTool(app.id, app.agentToolsMode, input.tool_name);
    if (setsConfiguration(input) && !tool.configurable) throw notConfigurable(input.tool_name);
    assertNoProblems(configuredParameterProblems(tool.parameters, input.configured_parameters ?? []));
    if (
      !tool.allowMultiple &&
      (await this.instances.countForAgentTool(projectId, agentId, input.installation_id, input.tool_name)) > 0
    ) {
      throw DomainError.conflict(
        `The agent already has tool "${input.tool_name}", which does not allow multiple instances: edit that instance instead.`,
      );
    }
    // A tool new since the app was installed: giving it to an agent is approving it as the project reads it now.
    await this.approvals.approveIfNone(input.installation_id, {
      toolKind: tool.kind,
      toolName: input.tool_name,
      definition: tool.definition,
    });
    const created = await this.instances.create(projectId, agentId, {
      id: newId('ti'),
      installationId: input.installation_id,
      appId: app.id,
      toolKind: tool.kind,
      toolName: input.tool_name,
      httpToolId: tool.httpToolId,
      title: input.title ?? null,
      configuration: (input.configuration ?? {}) as object,
      configuredParameters: input.configured_parameters ?? [],
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
      return {
        kind: 'mcp',
        httpToolId: null,
        configurable: false,
        allowMultiple: false,
        parameters: [],
        definition: mcpToolDefinition(tool),
      };
    }
    const row = await this.httpTools.getByName(appId, toolName);
    if (!row) throw unknownTool(toolName, 'HTTP tools');
    const tool = httpToolFromRow(row);
    return {
      kind: 'http',
      httpToolId: tool.id,
      configurable: tool.configurable,
      allowMultiple: tool.allow_multiple,
      parameters: tool.parameters,
      definition: httpToolDefinition(row),
    };
  }
}

function unknownTool(toolName: string, where: string): DomainError {
  return DomainError.validation([
    { path: 'tool_name', message: `the app's current mode has no tool "${toolName}" among its ${where}` },
  ]);
}
