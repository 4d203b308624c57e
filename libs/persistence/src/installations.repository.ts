import { Injectable } from '@nestjs/common';
import type { App, Installation } from './generated/client.js';
import type { ApproveChanges } from './call-states.js';
import { type Page, type PageRequest, toPage } from './page.js';
import { PrismaService } from './prisma.service.js';

export type InstallationWithApp = Installation & { app: App };

/** A project's installed apps, looked up and written by the project first: another project's is not touched. */
@Injectable()
export class InstallationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(projectId: string, installationId: string, appId: string): Promise<InstallationWithApp> {
    return this.prisma.installation.create({ data: { id: installationId, projectId, appId }, include: { app: true } });
  }

  async list(projectId: string, page: PageRequest): Promise<Page<InstallationWithApp>> {
    const rows = await this.prisma.installation.findMany({
      where: { projectId, ...(page.after ? { id: { gt: page.after } } : {}) },
      include: { app: true },
      orderBy: { id: 'asc' },
      take: page.limit + 1,
    });
    return toPage(rows, page.limit);
  }

  async get(projectId: string, installationId: string): Promise<InstallationWithApp | null> {
    return this.prisma.installation.findFirst({ where: { id: installationId, projectId }, include: { app: true } });
  }

  /** Sets whether a changed tool definition waits for the project's approval; null when there is no such installation. */
  async setApproveChanges(
    projectId: string,
    installationId: string,
    approveChanges: ApproveChanges,
  ): Promise<InstallationWithApp | null> {
    const { count } = await this.prisma.installation.updateMany({
      where: { id: installationId, projectId },
      data: { approveChanges },
    });
    return count === 0 ? null : this.get(projectId, installationId);
  }

  /** Deletes an installation of the project (its tool instances go with it); false when there was none. */
  async delete(projectId: string, installationId: string): Promise<boolean> {
    const { count } = await this.prisma.installation.deleteMany({ where: { id: installationId, projectId } });
    return count > 0;
  }
}
