// Generates the Prisma 7 client. Every Prisma 7 CLI command first fetches a native schema engine,
// which `generate` does not use: pointing it at /bin/true keeps generation offline.
import { spawnSync } from 'node:child_process';

const result = spawnSync('npx', ['prisma', 'generate'], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
process.exit(result.status ?? 1);
