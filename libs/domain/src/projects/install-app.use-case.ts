import { Injectable } from '@nestjs/common';
import {
  AppsRepository,
  type InstallationWithApp,
  InstallationsRepository,
  isUniqueViolation,
} from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';

@Injectable()
export class InstallApp {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly apps: AppsRepository,
  ) {}

  async execute(projectId: string, appId: string): Promise<InstallationWithApp> {
    if (!(await this.apps.exists(appId))) throw DomainError.notFound(`App "${appId}"`);
    try {
      return await this.installations.create(projectId, newId('inst'), appId);
    } catch (error) {
      if (isUniqueViolation(error)) throw DomainError.conflict(`App "${appId}" is already installed in this project.`);
      throw error;
    }
  }
}
