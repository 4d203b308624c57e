import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client.js';
import { parseDatabaseUrl } from './database-url.js';

/** The one Prisma client of a process, on the `pg` driver adapter. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(databaseUrl: string) {
    const { connectionString, schema } = parseDatabaseUrl(databaseUrl);
    // search_path too, so that raw SQL finds the same tables as the generated queries.
    super({ adapter: new PrismaPg({ connectionString, max: 20, options: `-c search_path=${schema}` }, { schema }) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}

/** True when Prisma refused a write because of a unique constraint. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2002';
}
