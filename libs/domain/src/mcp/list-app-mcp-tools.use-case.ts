import { Injectable } from '@nestjs/common';
import { type App, type McpToolSnapshot, McpToolsRepository } from '../../../persistence/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';

@Injectable()
export class ListAppMcpTools {
  constructor(
    private readonly findOwnedApp: FindOwnedApp,
    private readonly snapshots: McpToolsRepository,
  ) {}

  async execute(developerId: string, appId: string): Promise<{ app: App; tools: McpToolSnapshot[] }> {
    const app = await this.findOwnedApp.execute(developerId, appId);
    return { app, tools: await this.snapshots.list(appId) };
  }
}
