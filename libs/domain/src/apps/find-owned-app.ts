import { Injectable } from '@nestjs/common';
import { type App, AppsRepository } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';

/** Loads an app its developer owns, or refuses with 404 (another developer's app is not revealed). */
@Injectable()
export class FindOwnedApp {
  constructor(private readonly apps: AppsRepository) {}

  async execute(developerId: string, appId: string): Promise<App> {
    const app = await this.apps.get(developerId, appId);
    if (!app) throw DomainError.notFound(`App "${appId}"`);
    return app;
  }
}
