import { Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service.js';

/** A project's own call quotas; null where it sets none (then the deployment's default applies). */
export interface StoredProjectLimits {
  agentCallsPerMinute: number | null;
  projectCallsPerMinute: number | null;
}

/** Projects' call quotas, one row per project that set any. */
@Injectable()
export class ProjectLimitsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async get(projectId: string): Promise<StoredProjectLimits | null> {
    return this.prisma.projectLimits.findUnique({
      where: { projectId },
      select: { agentCallsPerMinute: true, projectCallsPerMinute: true },
    });
  }

  async put(projectId: string, limits: StoredProjectLimits): Promise<StoredProjectLimits> {
    return this.prisma.projectLimits.upsert({
      where: { projectId },
      create: { projectId, ...limits },
      update: limits,
      select: { agentCallsPerMinute: true, projectCallsPerMinute: true },
    });
  }
}
