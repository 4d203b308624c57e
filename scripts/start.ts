// npm start: everything on this machine with nothing set. Starts an embedded Postgres where
// DATABASE_URL is unset and a local redis-server where REDIS_URL is unset (data under .data/),
// applies migrations, then runs the API and the worker until Ctrl-C. Outside production it allows handlers on
// private addresses unless ALLOW_PRIVATE_NETWORK says otherwise.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEnvOrExit } from '../libs/config/src/index.js';
import { applyMigrations } from '../libs/persistence/src/index.js';
import { type LocalService, applyLocalMode, startEmbeddedPostgres, startLocalRedis } from './local-services.js';

const here = dirname(fileURLToPath(import.meta.url));
const dataDir = resolve(process.env.TOOLGATE_DATA_DIR ?? '.data');
const services: LocalService[] = [];
const children: ChildProcess[] = [];
let stopping = false;

function say(message: string) {
  console.log(`[toolgate] ${message}`);
}

async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((r) => child.once('exit', r)) : undefined)));
    await Promise.allSettled(services.map((service) => service.stop()));
  }
  process.exit(code);
}

function run(name: string, script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--enable-source-maps', join(here, script)], { env, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    say(`${name} stopped (${signal ?? `exit code ${code}`}); stopping the rest.`);
    void stopAll(code || 1);
  });
  children.push(child);
  return child;
}

process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  loadEnvOrExit();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const warning of applyLocalMode(env)) say(`WARNING: ${warning}`);
  if (!env.DATABASE_URL) {
    mkdirSync(dataDir, { recursive: true });
    const postgres = await startEmbeddedPostgres(join(dataDir, 'postgres'), { persistent: true });
    services.push(postgres);
    env.DATABASE_URL = postgres.url;
    say(`embedded Postgres on ${new URL(postgres.url).host} (data in ${join(dataDir, 'postgres')})`);
  }
  if (!env.REDIS_URL) {
    const redis = await startLocalRedis(join(dataDir, 'redis'));
    services.push(redis);
    env.REDIS_URL = redis.url;
    say(`local Redis on ${new URL(redis.url).host} (data in ${join(dataDir, 'redis')})`);
  }
  const applied = await applyMigrations(env.DATABASE_URL);
  say(applied.length > 0 ? `applied migrations: ${applied.join(', ')}` : 'database is up to date');
  run('API', '../apps/api/src/main.js', env);
  run('worker', '../apps/worker/src/main.js', env);
} catch (error) {
  console.error(`[toolgate] could not start: ${(error as Error).message}`);
  await stopAll(1);
}
