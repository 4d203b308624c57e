// npm run db:migrate: applies prisma/migrations to DATABASE_URL (fresh or existing database).
import { loadEnvOrExit } from '../libs/config/src/index.js';
import { applyMigrations } from '../libs/persistence/src/index.js';

const env = loadEnvOrExit();
if (!env.DATABASE_URL) {
  console.error('DATABASE_URL is required. (npm start migrates its embedded Postgres by itself.)');
  process.exit(2);
}
try {
  const applied = await applyMigrations(env.DATABASE_URL);
  console.log(
    applied.length > 0
      ? `Applied ${applied.length} migration(s): ${applied.join(', ')}`
      : 'The database is up to date.',
  );
} catch (error) {
  console.error(`Migration failed: ${(error as Error).message}`);
  process.exit(1);
}
