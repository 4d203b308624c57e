import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client.js';
import { DatabasePool } from './database-pool.js';

/** The one Prisma client of a process, on the `pg` driver adapter over the process's one pool. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  /** Given a URL (scripts, tests), it makes its own pool and ends it on $disconnect. */
  constructor(database: DatabasePool | string) {
    const owned = typeof database === 'string';
    const db = owned ? new DatabasePool(database) : database;
    super({ adapter: new PrismaPg(db.pool, { schema: db.schema, disposeExternalPool: owned }) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}

/** True when a write found no row to act on (e.g. a nested `connect` to a row that is not there, or not the owner's). */
export function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2025';
}

/** True when a write was refused because of a unique constraint: by Prisma (P2002), or by Postgres through `pg` (23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
  return code === 'P2002' || code === '23505';
}
