import { Injectable } from '@nestjs/common';
import { AppsRepository, ToolInstancesRepository } from '../../../persistence/src/index.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { AppMcpSessions } from '../mcp/app-mcp-sessions.js';
import { DomainError, ErrorCode } from '../errors.js';
import { FindOwnedApp } from './find-owned-app.js';

/** Removes an app with its tools, installations, instances and call history. */
@Injectable()
export class DeleteApp {
  constructor(
    private readonly apps: AppsRepository,
    private readonly findOwnedApp: FindOwnedApp,
    private readonly instances: ToolInstancesRepository,
    private readonly toolsets: AgentToolsets,
    private readonly mcpSessions: AppMcpSessions,
  ) {}

  async execute(developerId: string, appId: string, confirmed: boolean): Promise<void> {
    const app = await this.findOwnedApp.execute(developerId, appId);
    if (!confirmed) {
      throw new DomainError(
        ErrorCode.ConfirmationRequired,
        `Deleting app "${app.name}" removes its tools, installations and tool instances for good: repeat the request with ?confirm=true.`,
      );
    }
    const agents = await this.instances.agentsOfApp(appId);
    if (!(await this.apps.delete(developerId, appId))) throw DomainError.notFound(`App "${appId}"`);
    await this.toolsets.invalidateAgents(agents);
    await this.mcpSessions.end(appId);
  }
}
