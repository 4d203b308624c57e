import { Injectable } from '@nestjs/common';
import {
  AppsRepository,
  type InstallationWithApp,
  InstallationsRepository,
  isUniqueViolation,
} from '../../../persistence/src/index.js';
import { InstallationToolChanges } from '../approvals/installation-tool-changes.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import type { InstallationRead } from './list-installations.use-case.js';

@Injectable()
export class InstallApp {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly apps: AppsRepository,
    private readonly toolChanges: InstallationToolChanges,
  ) {}

  async execute(projectId: string, appId: string): Promise<InstallationRead> {
    if (!(await this.apps.exists(appId))) throw DomainError.notFound(`App "${appId}"`);
    let installation: InstallationWithApp;
    try {
      installation = await this.installations.create(projectId, newId('inst'), appId);
    } catch (error) {
      if (isUniqueViolation(error)) throw DomainError.conflict(`App "${appId}" is already installed in this project.`);
      throw error;
    }
    // Installing is approving the tools as the project reads them now (decision 032).
    await this.toolChanges.approve(installation.id, await this.toolChanges.current(installation.app));
    return { ...installation, pendingChanges: [] };
  }
}
