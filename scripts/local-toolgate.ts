// Toolgate on this machine as one unit: the services it lacks (embedded Postgres where DATABASE_URL is unset, a
// local redis-server where REDIS_URL is unset), migrations, then the API and the worker as child processes.
// Used by `npm start` (kept data, output on the terminal) and `npm run demo` (throw-away data, output to a file).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyMigrations } from '../libs/persistence/src/index.js';
import { type LocalService, startEmbeddedPostgres, startLocalRedis } from './local-services.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface LocalToolgateOptions {
  /** Where the embedded Postgres and Redis keep their data. */
  dataDir: string;
  /** Keep the data between runs (npm start) or throw it away (the demo). */
  persistent: boolean;
  env: NodeJS.ProcessEnv;
  say(message: string): void;
  /** Where the API and worker write: the terminal, or a file (the demo prints its own steps). */
  output: 'terminal' | { file: string };
  /** Called when the API or the worker stops by itself. */
  onUnexpectedExit(name: string, code: number): void;
}

export interface LocalToolgate {
  /** The environment the API and worker run with (DATABASE_URL and REDIS_URL filled in). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startLocalToolgate(options: LocalToolgateOptions): Promise<LocalToolgate> {
  const services: LocalService[] = [];
  const children: ChildProcess[] = [];
  let stopping = false;
  const stop = async () => {
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(
      children.map((child) =>
        child.exitCode === null ? new Promise((r) => child.once('exit', r)) : Promise.resolve(),
      ),
    );
    await Promise.allSettled(services.map((service) => service.stop()));
  };
  try {
    const env: NodeJS.ProcessEnv = { ...options.env };
    if (!env.DATABASE_URL) {
      mkdirSync(options.dataDir, { recursive: true });
      const postgres = await startEmbeddedPostgres(join(options.dataDir, 'postgres'), {
        persistent: options.persistent,
      });
      services.push(postgres);
      env.DATABASE_URL = postgres.url;
      options.say(`embedded Postgres on ${new URL(postgres.url).host}`);
    }
    if (!env.REDIS_URL) {
      const redis = await startLocalRedis(options.persistent ? join(options.dataDir, 'redis') : undefined);
      services.push(redis);
      env.REDIS_URL = redis.url;
      options.say(`local Redis on ${new URL(redis.url).host}`);
    }
    const applied = await applyMigrations(env.DATABASE_URL);
    options.say(applied.length > 0 ? `applied migrations: ${applied.join(', ')}` : 'database is up to date');
    const stdio =
      options.output === 'terminal'
        ? 'inherit'
        : ['ignore', openSync(options.output.file, 'a'), openSync(options.output.file, 'a')];
    for (const [name, script] of [
      ['API', '../apps/api/src/main.js'],
      ['worker', '../apps/worker/src/main.js'],
    ]) {
      const child = spawn(process.execPath, ['--enable-source-maps', join(here, script)], {
        env,
        stdio: stdio as never,
      });
      child.on('exit', (code, signal) => {
        if (!stopping) options.onUnexpectedExit(name, code ?? (signal ? 1 : 0));
      });
      children.push(child);
    }
    return { env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until the API answers /health/ready with 200, or throws after `timeoutMs`. */
export async function waitUntilReady(baseUrl: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ready = await fetch(`${baseUrl}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() > until) throw new Error(`the API did not become ready at ${baseUrl} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
