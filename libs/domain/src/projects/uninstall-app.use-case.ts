import { Injectable } from '@nestjs/common';
import { InstallationsRepository, ToolInstancesRepository } from '../../../persistence/src/index.js';
import { DomainError, ErrorCode } from '../errors.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { FindInstallation } from './find-installation.use-case.js';

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
        `Uninstalling app "${installation.app.name}" removes its tools from every agent of the project: ` +
          'repeat the request with ?confirm=true.',
      );
    }
    const agents = await this.instances.agentsOfInstallation(installationId);
    if (!(await this.installations.delete(projectId, installationId)))
      throw DomainError.notFound(`Installation "${installationId}"`);
    await this.toolsets.invalidateAgents(agents);
  }
}
