import { Injectable } from '@nestjs/common';
import { type App, AppsRepository, type Page, type PageRequest } from '../../../persistence/src/index.js';

@Injectable()
export class ListApps {
  constructor(private readonly apps: AppsRepository) {}

  async execute(developerId: string, page: PageRequest): Promise<Page<App>> {
    return this.apps.list(developerId, page);
  }
}
