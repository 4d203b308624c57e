// Prisma 7 CLI configuration. The URL is read here (not with env(), which throws when unset) so
// that `prisma generate` works without a database.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
