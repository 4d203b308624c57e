import { Injectable } from '@nestjs/common';
import type { McpToolSnapshot } from './generated/client.js';
import { PrismaService } from './prisma.service.js';

/** The last snapshot of an MCP-mode app's tools. */
@Injectable()
export class McpToolsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async list(appId: string): Promise<McpToolSnapshot[]> {
    return this.prisma.mcpToolSnapshot.findMany({ where: { appId }, orderBy: { position: 'asc' } });
  }

  async get(appId: string, name: string): Promise<McpToolSnapshot | null> {
    return this.prisma.mcpToolSnapshot.findUnique({ where: { appId_name: { appId, name } } });
  }
}
