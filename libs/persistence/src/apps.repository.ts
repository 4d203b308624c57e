import { Injectable } from '@nestjs/common';
import type { App, Prisma } from './generated/client.js';
import { type Page, type PageRequest, toPage } from './page.js';
import { PrismaService } from './prisma.service.js';

export type NewApp = Pick<App, 'id' | 'developerId' | 'name' | 'displayName' | 'webhookSecretEnc'>;

/** Apps, always looked up by their owner first: another developer's app is simply not found. */
@Injectable()
export class AppsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(app: NewApp): Promise<App> {
    return this.prisma.$transaction(async (tx) => {
      await tx.developer.upsert({ where: { id: app.developerId }, create: { id: app.developerId }, update: {} });
      return tx.app.create({ data: app });
    });
  }

  async list(developerId: string, page: PageRequest): Promise<Page<App>> {
    const rows = await this.prisma.app.findMany({
      where: { developerId, ...(page.after ? { id: { gt: page.after } } : {}) },
      orderBy: { id: 'asc' },
      take: page.limit + 1,
    });
    return toPage(rows, page.limit);
  }

  async get(developerId: string, appId: string): Promise<App | null> {
    return this.prisma.app.findFirst({ where: { id: appId, developerId } });
  }

  /** Updates an app the developer owns; null when there is none. */
  async update(developerId: string, appId: string, data: Prisma.AppUpdateManyMutationInput): Promise<App | null> {
    const { count } = await this.prisma.app.updateMany({ where: { id: appId, developerId }, data });
    return count === 0 ? null : this.get(developerId, appId);
  }

  /** Deletes an app with its tools, installations, instances and calls; false when there was none. */
  async delete(developerId: string, appId: string): Promise<boolean> {
    const { count } = await this.prisma.app.deleteMany({ where: { id: appId, developerId } });
    return count > 0;
  }

  /** Whether an app exists, whoever owns it (projects install apps of any developer). */
  async exists(appId: string): Promise<boolean> {
    return (await this.prisma.app.count({ where: { id: appId } })) > 0;
  }

  async getById(appId: string): Promise<App | null> {
    return this.prisma.app.findUnique({ where: { id: appId } });
  }
}
