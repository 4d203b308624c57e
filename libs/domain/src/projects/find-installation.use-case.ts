import { Injectable } from '@nestjs/common';
import { type InstallationWithApp, InstallationsRepository } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';

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
