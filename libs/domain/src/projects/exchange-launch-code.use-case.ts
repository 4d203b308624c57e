import { Injectable } from '@nestjs/common';
import { HttpToolsRepository, LaunchCodesRepository, ToolInstancesRepository } from '../../../persistence/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { DomainError } from '../errors.js';
import { instanceStatus } from '../instances/tool-instance.js';
import { httpToolFromRow } from '../tools/http-tool-record.js';
import { hashCode } from './launch-code-hash.js';

/** The developer's configurator trades a launch code (once, within 10 minutes) for its context. */
@Injectable()
export class ExchangeLaunchCode {
  constructor(
    private readonly findOwnedApp: FindOwnedApp,
    private readonly launchCodes: LaunchCodesRepository,
    private readonly httpTools: HttpToolsRepository,
    private readonly instances: ToolInstancesRepository,
  ) {}

  async execute(developerId: string, appId: string, launchCode: string, now = new Date()) {
    await this.findOwnedApp.execute(developerId, appId);
    const launch = await this.launchCodes.consume(hashCode(launchCode), appId, now);
    if (!launch) throw DomainError.notFound('Launch code (unknown, already used or older than 10 minutes)');
    const toolRow = await this.httpTools.getByName(appId, launch.toolName);
    const instance = launch.instanceId ? await this.instances.get(launch.projectId, launch.agentId, launch.instanceId) : null;
    return {
      mode: launch.mode,
      project_id: launch.projectId,
      agent_id: launch.agentId,
      installation_id: launch.installationId,
      tool_name: launch.toolName,
      theme: launch.theme,
      language: launch.language,
      tool: toolRow ? { name: toolRow.name, parameters: httpToolFromRow(toolRow).parameters, allow_multiple: toolRow.allowMultiple } : null,
      instance: instance
        ? {
            id: instance.id,
            title: instance.title,
            configuration: instance.configuration,
            configured_parameters: instance.configuredParameters,
            private_data_set: instance.privateDataEnc !== null,
            private_data_required: instance.privateDataRequired,
            enabled: instance.enabled,
            status: instanceStatus(instance),
          }
        : null,
    };
  }
}
