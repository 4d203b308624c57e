import { Injectable } from '@nestjs/common';
import { ToolInstancesRepository } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';

@Injectable()
export class DeleteToolInstance {
  constructor(
    private readonly instances: ToolInstancesRepository,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(projectId: string, agentId: string, instanceId: string): Promise<void> {
    if (!(await this.instances.delete(projectId, agentId, instanceId)))
      throw DomainError.notFound(`Tool instance "${instanceId}"`);
    await this.toolsets.invalidateAgent({ projectId, agentId });
  }
}
