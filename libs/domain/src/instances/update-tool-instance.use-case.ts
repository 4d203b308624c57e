import { Injectable } from '@nestjs/common';
import { type ToolInstance, ToolInstancesRepository } from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { configuredParameterProblems } from '../calls/accepting/tool-arguments.js';
import { DomainError, assertNoProblems } from '../errors.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { httpToolFromRow } from '../tools/http-tool-record.js';
import { notConfigurable } from './not-configurable.js';
import { type InstanceSettingsInput, instanceSettingsProblems, setsConfiguration } from './tool-instance.js';

/** Edits an instance; private data is kept unless the action says replace or clear. */
@Injectable()
export class UpdateToolInstance {
  constructor(
    private readonly instances: ToolInstancesRepository,
    private readonly secrets: SecretBox,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(
    projectId: string,
    agentId: string,
    instanceId: string,
    input: InstanceSettingsInput,
  ): Promise<ToolInstance> {
    assertNoProblems(instanceSettingsProblems(input));
    const instance = await this.instances.getWithTool(instanceId);
    if (!instance || instance.projectId !== projectId || instance.agentId !== agentId)
      throw DomainError.notFound(`Tool instance "${instanceId}"`);
    const tool = instance.httpTool ? httpToolFromRow(instance.httpTool) : null;
    if (setsConfiguration(input) && !tool?.configurable) throw notConfigurable(instance.toolName);
    if (input.configured_parameters)
      assertNoProblems(configuredParameterProblems(tool?.parameters ?? [], input.configured_parameters));
    const action = input.private_data_action ?? 'preserve';
    const updated = await this.instances.update(projectId, agentId, instanceId, {
      title: input.title,
      configuration: input.configuration as object | undefined,
      configuredParameters: input.configured_parameters,
      // configured again, checked against the tool's parameters as they are now
      ...(input.configured_parameters ? { configurationProblem: null } : {}),
      privateDataRequired: input.private_data_required,
      enabled: input.enabled,
      ...(action === 'replace' ? { privateDataEnc: await this.secrets.encryptJson(input.private_data) } : {}),
      ...(action === 'clear' ? { privateDataEnc: null } : {}),
    });
    if (!updated) throw DomainError.notFound(`Tool instance "${instanceId}"`);
    await this.toolsets.invalidateAgent({ projectId, agentId });
    return updated;
  }
}
