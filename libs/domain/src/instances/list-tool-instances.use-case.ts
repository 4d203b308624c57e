import { Injectable } from '@nestjs/common';
import {
  type Page,
  type PageRequest,
  type ToolInstance,
  ToolInstancesRepository,
} from '../../../persistence/src/index.js';

@Injectable()
export class ListToolInstances {
  constructor(private readonly instances: ToolInstancesRepository) {}

  async execute(projectId: string, agentId: string, page: PageRequest): Promise<Page<ToolInstance>> {
    return this.instances.list(projectId, agentId, page);
  }
}
