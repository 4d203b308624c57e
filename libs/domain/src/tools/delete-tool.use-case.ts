import { Injectable } from '@nestjs/common';
import { HttpToolsRepository, ToolInstancesRepository } from '../../../persistence/src/index.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { DomainError, ErrorCode } from '../errors.js';

/** Removes a tool and every agent's instance of it. */
@Injectable()
export class DeleteTool {
  constructor(
    private readonly tools: HttpToolsRepository,
    private readonly instances: ToolInstancesRepository,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(developerId: string, appId: string, toolId: string, confirmed: boolean): Promise<void> {
    const tool = await this.tools.get(developerId, appId, toolId);
    if (!tool) throw DomainError.notFound(`Tool "${toolId}"`);
    if (!confirmed) {
      throw new DomainError(
        ErrorCode.ConfirmationRequired,
        `Deleting tool "${tool.name}" removes it from every agent for good: repeat the request with ?confirm=true.`,
      );
    }
    const agents = await this.instances.agentsOfApp(appId);
    if (!(await this.tools.delete(developerId, appId, toolId))) throw DomainError.notFound(`Tool "${toolId}"`);
    await this.toolsets.invalidateAgents(agents);
  }
}
