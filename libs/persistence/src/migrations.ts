import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { parseDatabaseUrl } from './database-url.js';

/**
 * Applies prisma/migrations the way `prisma migrate deploy` does, in-process and offline:
 * the same `_prisma_migrations` table and checksums, so Prisma's own CLI sees the same history.
 * (Prisma 7's CLI needs a native engine download that these machines cannot make.)
 *
 * Every step is one transaction holding a transaction-scoped lock, with its search_path set for that transaction
 * only: nothing relies on the session, so it runs as well through a pooler in transaction mode (PgBouncer), where
 * each transaction may be a different Postgres session.
 */
export async function applyMigrations(databaseUrl: string, migrationsDir = findMigrationsDir()): Promise<string[]> {
  const { connectionString, schema } = parseDatabaseUrl(databaseUrl);
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  try {
    const done = await locked(client, schema, async () => {
      await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id" VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum" VARCHAR(64) NOT NULL,
        "finished_at" TIMESTAMPTZ,
        "migration_name" VARCHAR(255) NOT NULL,
        "logs" TEXT,
        "rolled_back_at" TIMESTAMPTZ,
        "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`);
      return finishedMigrations(client);
    });
    for (const name of listMigrations(migrationsDir)) {
      if (done.has(name)) continue;
      const sql = readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const ran = await locked(client, schema, async () => {
        // Another process may have applied it since the list was read: the lock orders us after it.
        if ((await finishedMigrations(client)).has(name)) return false;
        try {
          await client.query(sql);
        } catch (error) {
          throw new Error(`migration ${name} failed: ${(error as Error).message}`, { cause: error });
        }
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), checksum, name],
        );
        return true;
      });
      if (ran) applied.push(name);
    }
  } finally {
    await client.end();
  }
  return applied;
}

/** Runs `step` in a transaction of its own on `schema`, holding the schema's migration lock until it ends. */
async function locked<T>(client: pg.Client, schema: string, step: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`toolgate-migrations:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`SET LOCAL search_path TO "${schema}"`);
    const result = await step();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/** The migrations applied; refuses to go on after one that failed and was not rolled back. */
async function finishedMigrations(client: pg.Client): Promise<Set<string>> {
  const { rows } = await client.query<{
    migration_name: string;
    finished_at: Date | null;
    rolled_back_at: Date | null;
  }>('SELECT migration_name, finished_at, rolled_back_at FROM "_prisma_migrations"');
  const failed = rows.find((row) => row.finished_at === null && row.rolled_back_at === null);
  if (failed) {
    throw new Error(
      `migration ${failed.migration_name} failed earlier and was not rolled back: fix the database, then mark it rolled back`,
    );
  }
  return new Set(rows.filter((row) => row.finished_at !== null).map((row) => row.migration_name));
}

function listMigrations(migrationsDir: string): string[] {
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(migrationsDir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort();
}

/** prisma/migrations of this checkout, found from this file in src/ or in dist/. */
export function findMigrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'prisma', 'migrations');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('prisma/migrations not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
