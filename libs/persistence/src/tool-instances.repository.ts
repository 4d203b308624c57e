import { Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service.js';

/** Tool instances: the tools projects gave their agents. */
@Injectable()
export class ToolInstancesRepository {
  constructor(private readonly prisma: PrismaService) {}

  async countForHttpTool(httpToolId: string): Promise<number> {
    return this.prisma.toolInstance.count({ where: { httpToolId } });
  }

  /** The largest number of instances of this tool that one agent has. */
  async maxPerAgentForHttpTool(httpToolId: string): Promise<number> {
    const groups = await this.prisma.toolInstance.groupBy({
      by: ['agentId'],
      where: { httpToolId },
      _count: { _all: true },
      orderBy: { _count: { agentId: 'desc' } },
      take: 1,
    });
    return groups[0]?._count._all ?? 0;
  }
}
