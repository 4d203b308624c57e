// Writes a new migration from the difference between prisma/migrations and prisma/schema.prisma.
// Prisma 7's CLI cannot reach its native schema engine offline, so this uses the official Prisma 6
// CLI (dev dependency `prisma6`) on its WASM schema engine. The folder format is the same for
// Prisma 6 and 7. Usage: SHADOW_DATABASE_URL=<an empty database> npm run db:diff -- <name>
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:diff -- <migration_name in snake_case>');
  process.exit(2);
}
// Inside the project so that the config can import prisma6 and the adapter.
const work = join('node_modules', '.cache', 'toolgate-diff');
mkdirSync(work, { recursive: true });
// Prisma 6 wants the URL inside the datasource block; Prisma 7 wants it in prisma.config.ts.
const schema = readFileSync('prisma/schema.prisma', 'utf8').replace(
  'provider = "postgresql"',
  'provider = "postgresql"\n  url      = env("DATABASE_URL")',
);
writeFileSync(join(work, 'schema.prisma'), schema);
const fakeEngine = join(work, 'unused-query-engine.so.node');
writeFileSync(fakeEngine, '');
writeFileSync(
  join(work, 'prisma6.config.ts'),
  `import { defineConfig } from 'prisma6/config';
import { PrismaPg } from '@prisma/adapter-pg';
export default defineConfig({
  engine: 'js',
  experimental: { adapter: true },
  schema: 'schema.prisma',
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL }),
} as never);
`,
);
const migrationsDir = 'prisma/migrations';
const existing = existsSync(migrationsDir) ? readdirSync(migrationsDir).filter((d) => /^\d+_/.test(d)) : [];
const shadow = process.env.SHADOW_DATABASE_URL;
if (!shadow) {
  console.error(
    'SHADOW_DATABASE_URL is required: an empty database the diff may connect to, replay migrations into and wipe.',
  );
  process.exit(2);
}
const from =
  existing.length === 0 ? ['--from-empty'] : ['--from-migrations', migrationsDir, '--shadow-database-url', shadow];
const result = spawnSync(
  process.execPath,
  [
    'node_modules/prisma6/build/index.js',
    'migrate',
    'diff',
    '--config',
    join(work, 'prisma6.config.ts'),
    ...from,
    '--to-schema-datamodel',
    join(work, 'schema.prisma'),
    '--script',
  ],
  {
    encoding: 'utf8',
    env: {
      ...process.env,
      DATABASE_URL: shadow,
      PRISMA_QUERY_ENGINE_LIBRARY: fakeEngine,
      PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
    },
  },
);
if (result.status !== 0) {
  console.error(result.stderr);
  process.exit(result.status ?? 1);
}
if (!/\b(CREATE|ALTER|DROP)\b/.test(result.stdout)) {
  console.log('No changes: the migrations already match prisma/schema.prisma.');
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const dir = join(migrationsDir, `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'migration.sql'), result.stdout);
if (!existsSync(join(migrationsDir, 'migration_lock.toml'))) {
  writeFileSync(join(migrationsDir, 'migration_lock.toml'), 'provider = "postgresql"\n');
}
console.log(`Wrote ${dir}/migration.sql`);
