import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client.js';
import { parseDatabaseUrl } from './database-url.js';

/**
 * Bounds on every wait for Postgres: a connection, a statement on the server, and an answer on the
 * wire (a server that went silent). A request then fails within seconds and is answered 503.
 */
export const DATABASE_TIMEOUTS = { connectMs: 2000, statementMs: 5000, answerMs: 6000 } as const;

/** The one Prisma client of a process, on the `pg` driver adapter. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(databaseUrl: string) {
    const { connectionString, schema } = parseDatabaseUrl(databaseUrl);
    const pool = {
      connectionString,
      max: 20,
      // search_path too, so that raw SQL finds the same tables as the generated queries.
      options: `-c search_path=${schema}`,
      connectionTimeoutMillis: DATABASE_TIMEOUTS.connectMs,
      statement_timeout: DATABASE_TIMEOUTS.statementMs,
      query_timeout: DATABASE_TIMEOUTS.answerMs,
    };
    super({ adapter: new PrismaPg(pool, { schema }) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}

/** True when Prisma refused a write because of a unique constraint. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2002';
}
