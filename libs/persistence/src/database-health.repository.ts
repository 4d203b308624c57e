import { Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service.js';

/** Whether Postgres answers: the readiness check's one query. */
@Injectable()
export class DatabaseHealthRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Resolves when Postgres answers a query; rejects when it does not. */
  async ping(): Promise<void> {
    await this.prisma.$queryRaw`SELECT 1`;
  }
}
