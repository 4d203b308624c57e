import { Injectable } from '@nestjs/common';
import type { HttpTool, Prisma } from './generated/client.js';
import { type Page, type PageRequest, toPage } from './page.js';
import { PrismaService } from './prisma.service.js';

export type HttpToolRow = HttpTool;
export type HttpToolColumns = Omit<Prisma.HttpToolUncheckedCreateInput, 'id' | 'appId' | 'createdAt' | 'updatedAt'>;

/** HTTP tools, looked up by the owning developer and app first. */
@Injectable()
export class HttpToolsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(id: string, appId: string, columns: HttpToolColumns): Promise<HttpTool> {
    return this.prisma.httpTool.create({ data: { id, appId, ...columns } });
  }

  async list(developerId: string, appId: string, page: PageRequest): Promise<Page<HttpTool>> {
    const rows = await this.prisma.httpTool.findMany({
      where: { appId, app: { developerId }, ...(page.after ? { id: { gt: page.after } } : {}) },
      orderBy: { id: 'asc' },
      take: page.limit + 1,
    });
    return toPage(rows, page.limit);
  }

  async get(developerId: string, appId: string, toolId: string): Promise<HttpTool | null> {
    return this.prisma.httpTool.findFirst({ where: { id: toolId, appId, app: { developerId } } });
  }

  async update(toolId: string, columns: Partial<HttpToolColumns>): Promise<HttpTool> {
    return this.prisma.httpTool.update({ where: { id: toolId }, data: columns });
  }

  async delete(toolId: string): Promise<void> {
    await this.prisma.httpTool.delete({ where: { id: toolId } });
  }

  async countConfigurable(appId: string): Promise<number> {
    return this.prisma.httpTool.count({ where: { appId, configurable: true } });
  }

  /** Every tool of an app, in creation order. */
  async listAll(appId: string): Promise<HttpTool[]> {
    return this.prisma.httpTool.findMany({ where: { appId }, orderBy: { id: 'asc' } });
  }

  async getByName(appId: string, name: string): Promise<HttpTool | null> {
    return this.prisma.httpTool.findUnique({ where: { appId_name: { appId, name } } });
  }
}
