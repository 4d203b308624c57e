import { Injectable } from '@nestjs/common';
import { HttpToolsRepository, type Page, type PageRequest } from '../../../persistence/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { type HttpToolRecord, httpToolFromRow } from './http-tool-record.js';

@Injectable()
export class ListTools {
  constructor(
    private readonly tools: HttpToolsRepository,
    private readonly findOwnedApp: FindOwnedApp,
  ) {}

  async execute(developerId: string, appId: string, page: PageRequest): Promise<Page<HttpToolRecord>> {
    await this.findOwnedApp.execute(developerId, appId);
    const { items, nextAfter } = await this.tools.list(developerId, appId, page);
    return { items: items.map(httpToolFromRow), nextAfter };
  }
}
