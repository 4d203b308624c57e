import { Injectable } from '@nestjs/common';
import type { InstallationWithApp } from '../../../persistence/src/index.js';
import { FindInstallation } from '../projects/find-installation.use-case.js';
import { InstallationToolChanges, type PendingToolChange } from './installation-tool-changes.js';

export interface InstallationChanges {
  installation: InstallationWithApp;
  changes: PendingToolChange[];
}

/** The tool definitions of an installed app that wait for the project's approval, each beside the approved one. */
@Injectable()
export class ListInstallationChanges {
  constructor(
    private readonly findInstallation: FindInstallation,
    private readonly toolChanges: InstallationToolChanges,
  ) {}

  async execute(projectId: string, installationId: string): Promise<InstallationChanges> {
    const installation = await this.findInstallation.execute(projectId, installationId);
    return { installation, changes: await this.toolChanges.pending(installation) };
  }
}
