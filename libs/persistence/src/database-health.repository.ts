import { Injectable } from '@nestjs/common';
import { DatabasePool } from './database-pool.js';

const PING = { name: 'database_health_ping', text: 'SELECT 1' };

/** Whether Postgres answers: the readiness check's one query (on the pool: it never loads Prisma's engine). */
@Injectable()
export class DatabaseHealthRepository {
  constructor(private readonly db: DatabasePool) {}

  /** Resolves when Postgres answers a query; rejects when it does not. */
  async ping(): Promise<void> {
    await this.db.rows(PING, []);
  }
}
