import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Left in dist/ by test/global-setup.ts once it has built dist/ for this run. */
export const DIST_BUILT_MARKER = 'dist/.built-for-tests';

/** Fails clearly when dist/ was not built for this run (global setup builds it for files importing this module). */
export function requireDist(): void {
  if (!existsSync(`${root}/${DIST_BUILT_MARKER}`)) {
    throw new Error(
      `${DIST_BUILT_MARKER} missing: test/global-setup.ts builds dist/ when a test file imports this module`,
    );
  }
}

export interface AppProcess {
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/**
 * Runs `dist/apps/<name>/src/main.js` with exactly the given environment (plus PATH), from the repository or from
 * `options.root` (a directory with its own dist/ and node_modules/).
 */
export function startAppProcess(
  name: 'api' | 'worker',
  env: Record<string, string>,
  options: { root?: string } = {},
): AppProcess {
  const cwd = options.root ?? root;
  const child = spawn(process.execPath, [`${cwd}/dist/apps/${name}/src/main.js`], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => output,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
    async waitForOutput(pattern, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${output}`);
        if (Date.now() > until) throw new Error(`${name} did not print ${pattern}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

export interface ProcessFixture {
  /** The environment the API and worker processes get. */
  env: Record<string, string>;
  redisUrl: string;
  /** The test file's schema, for checking what the processes stored. */
  db: import('pg').Pool;
  /** That database, for an in-process API over the same tables. */
  database: import('./test-api.js').FreshDatabase;
  stop(): Promise<void>;
}

/**
 * What tests of real API and worker processes share: the build (checked), a Redis of the test file's own
 * (FLUSHALL and key scans touch nothing else), a fresh schema, and their environment.
 */
export async function processFixture(overrides: Record<string, string> = {}): Promise<ProcessFixture> {
  const { default: pg } = await import('pg');
  const { startLocalRedis } = await import('../../scripts/local-services.js');
  const { TEST_SECRETS_KEYS, freshDatabase } = await import('./test-api.js');
  const { TEST_JWT_SECRET } = await import('./tokens.js');
  requireDist();
  const redis = await startLocalRedis();
  const database = await freshDatabase();
  const { databaseUrl, schema, directUrl } = database;
  const db = new pg.Pool({ connectionString: directUrl, options: `-c search_path=${schema}`, max: 2 });
  return {
    env: {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      SECRETS_KEYS: TEST_SECRETS_KEYS,
      ALLOW_PRIVATE_NETWORK: 'true',
      WORKER_METRICS_PORT: '0',
      ...overrides,
    },
    redisUrl: redis.url,
    db,
    database,
    async stop() {
      await db.end();
      await redis.stop();
    },
  };
}
