import { Injectable } from '@nestjs/common';
import type { HttpTool, Prisma } from './generated/client.js';
import { type Page, type PageRequest, toPage } from './page.js';
import { PrismaService, isNotFound } from './prisma.service.js';

export type HttpToolRow = HttpTool;
export type HttpToolColumns = Omit<Prisma.HttpToolUncheckedCreateInput, 'id' | 'appId' | 'createdAt' | 'updatedAt'>;

/** HTTP tools, looked up and written by the owning developer and app first: another developer's tool is not touched. */
@Injectable()
export class HttpToolsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Adds a tool to an app the developer owns; null when there is none. */
  async create(developerId: string, appId: string, id: string, columns: HttpToolColumns): Promise<HttpTool | null> {
    try {
      return await this.prisma.httpTool.create({
        data: { id, ...columns, app: { connect: { id: appId, developerId } } },
      });
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
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

  /** Updates a tool of an app the developer owns; null when there is none. */
  async update(
    developerId: string,
    appId: string,
    toolId: string,
    columns: Partial<HttpToolColumns>,
  ): Promise<HttpTool | null> {
    const { count } = await this.prisma.httpTool.updateMany({
      where: { id: toolId, appId, app: { developerId } },
      data: columns,
    });
    return count === 0 ? null : this.get(developerId, appId, toolId);
  }

  /** Deletes a tool of an app the developer owns (its instances go with it); false when there was none. */
  async delete(developerId: string, appId: string, toolId: string): Promise<boolean> {
    const { count } = await this.prisma.httpTool.deleteMany({ where: { id: toolId, appId, app: { developerId } } });
    return count > 0;
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
