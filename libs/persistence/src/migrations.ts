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
 */
export async function applyMigrations(databaseUrl: string, migrationsDir = findMigrationsDir()): Promise<string[]> {
  const { connectionString, schema } = parseDatabaseUrl(databaseUrl);
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`toolgate-migrations:${schema}`]);
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
    const done = new Set(rows.filter((row) => row.finished_at !== null).map((row) => row.migration_name));
    for (const name of listMigrations(migrationsDir)) {
      if (done.has(name)) continue;
      const sql = readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), checksum, name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(name);
    }
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`toolgate-migrations:${schema}`]);
  } finally {
    await client.end();
  }
  return applied;
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
