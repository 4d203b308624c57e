import { Injectable } from '@nestjs/common';
import {
  type ApproveChanges,
  type InstallationWithApp,
  InstallationsRepository,
  ToolInstancesRepository,
} from '../../../persistence/src/index.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { DomainError } from '../errors.js';
import { FindInstallation } from '../projects/find-installation.use-case.js';
import type { InstallationRead } from '../projects/list-installations.use-case.js';
import { InstallationToolChanges } from './installation-tool-changes.js';

/**
 * Sets whether the installation's agents wait for the project's approval of a changed tool (`ask`) or see each change
 * at once (`auto`). Back to `ask`, what the agents saw under `auto` (the tools as they are now) is what is approved.
 */
@Injectable()
export class SetApproveChanges {
  constructor(
    private readonly findInstallation: FindInstallation,
    private readonly installations: InstallationsRepository,
    private readonly toolChanges: InstallationToolChanges,
    private readonly instances: ToolInstancesRepository,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(projectId: string, installationId: string, mode: ApproveChanges): Promise<InstallationRead> {
    const before = await this.findInstallation.execute(projectId, installationId);
    if (before.approveChanges !== mode) {
      if (mode === 'ask') await this.toolChanges.approve(before.id, await this.toolChanges.current(before.app));
      const updated = await this.installations.setApproveChanges(projectId, installationId, mode);
      if (!updated) throw DomainError.notFound(`Installation "${installationId}"`);
      await this.toolsets.invalidateAgents(await this.instances.agentsOfInstallation(before.id));
      return this.read(updated);
    }
    return this.read(before);
  }

  private async read(installation: InstallationWithApp): Promise<InstallationRead> {
    const pending = await this.toolChanges.pending(installation);
    return { ...installation, pendingChanges: pending.map((change) => change.name) };
  }
}
