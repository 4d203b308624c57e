// Toolgate on this machine as one unit: the services it lacks (embedded Postgres where DATABASE_URL is unset, a
// local redis-server where REDIS_URL is unset), migrations, then the API and the worker as child processes.
// Used by `npm start` (kept data, output on the terminal) and `npm run demo` (throw-away data, output to a file).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { applyMigrations } from '../libs/persistence/src/index.js';
import { type LocalService, startEmbeddedPostgres, startLocalRedis } from './local-services.js';

const here = dirname(fileURLToPath(import.meta.url));
/** How long the API and the worker get to drain after SIGTERM (the worker's 130 s, and a margin) before SIGKILL. */
const DRAIN_TIMEOUT_MS = 135_000;
/** The same once Postgres or Redis has gone: they cannot finish draining (their clients wait for it to come back). */
const DRAIN_WITHOUT_SERVICES_TIMEOUT_MS = 5_000;

export interface LocalToolgateOptions {
  /** Where the embedded Postgres and Redis keep their data. */
  dataDir: string;
  /** Keep the data between runs (npm start) or throw it away (the demo). */
  persistent: boolean;
  env: NodeJS.ProcessEnv;
  say(message: string): void;
  /** Where the API and worker write: the terminal, or a file (the demo prints its own steps). */
  output: 'terminal' | { file: string };
  /** Called when the API, the worker, Postgres or Redis stops by itself (`how`: "exited with code 1", …). */
  onUnexpectedExit(name: string, how: string): void;
  /** The caller stops everything itself on SIGINT, SIGTERM and SIGHUP: no library may stop a part of it first. */
  callerHandlesSignals?: boolean;
}

export interface LocalToolgate {
  /** The environment the API and worker run with (DATABASE_URL and REDIS_URL filled in). */
  env: NodeJS.ProcessEnv;
  /** Stops the API and the worker (SIGTERM, waiting for them to drain), then the services; once. */
  stop(): Promise<void>;
}

export async function startLocalToolgate(options: LocalToolgateOptions): Promise<LocalToolgate> {
  const services: LocalService[] = [];
  const children: { name: string; child: ChildProcess }[] = [];
  let serviceGone = false;
  let hurry: (() => void) | undefined; // shortens the children's time once a service has gone
  /** SIGTERM to the API and the worker; SIGKILL to those still running when their time is up. */
  const stopChildren = async () => {
    const running = children.filter(({ child }) => child.exitCode === null && child.signalCode === null);
    const exited = running.map(({ child }) => new Promise((resolve) => child.once('exit', resolve)));
    for (const { child } of running) child.kill('SIGTERM');
    const kill = () => {
      for (const { name, child } of running) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        options.say(`the ${name} did not stop in time: killing it (the reconciler sends what it cut short again)`);
        child.kill('SIGKILL');
      }
    };
    let timer = setTimeout(kill, serviceGone ? DRAIN_WITHOUT_SERVICES_TIMEOUT_MS : DRAIN_TIMEOUT_MS);
    hurry = () => {
      clearTimeout(timer);
      timer = setTimeout(kill, DRAIN_WITHOUT_SERVICES_TIMEOUT_MS);
    };
    await Promise.all(exited);
    clearTimeout(timer);
    hurry = undefined;
  };
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await stopChildren();
      await Promise.allSettled(services.map((service) => service.stop()));
    })());
  const watch = (name: string, service: LocalService) => {
    services.push(service);
    service.onUnexpectedEnd((how) => {
      if (!serviceGone) hurry?.(); // Ctrl-C reaches Redis too: it may go while the worker drains
      serviceGone = true;
      if (!stopping) options.onUnexpectedExit(name, how);
    });
  };
  try {
    const env: NodeJS.ProcessEnv = { ...options.env };
    // The ports Toolgate's own processes will listen on: a local Postgres or Redis must not take them first.
    const reservedPorts = [env.PORT, env.WORKER_METRICS_PORT].map(Number).filter((port) => port > 0);
    if (!env.DATABASE_URL) {
      mkdirSync(options.dataDir, { recursive: true });
      const postgres = await startEmbeddedPostgres(join(options.dataDir, 'postgres'), {
        persistent: options.persistent,
        callerHandlesSignals: options.callerHandlesSignals,
        reservedPorts,
      });
      watch('Postgres', postgres);
      env.DATABASE_URL = postgres.url;
      options.say(`embedded Postgres on ${new URL(postgres.url).host}`);
    }
    if (!env.REDIS_URL) {
      const redis = await startLocalRedis(
        options.persistent ? join(options.dataDir, 'redis') : undefined,
        reservedPorts,
      );
      watch('Redis', redis);
      env.REDIS_URL = redis.url;
      options.say(`local Redis on ${new URL(redis.url).host}`);
    }
    const applied = await applyMigrations(env.DATABASE_URL);
    options.say(applied.length > 0 ? `applied migrations: ${applied.join(', ')}` : 'database is up to date');
    // The IPC channel is how they notice this process going without stopping them (see stop-with-parent.ts).
    const stdio =
      options.output === 'terminal'
        ? ['inherit', 'inherit', 'inherit', 'ipc']
        : ['ignore', openSync(options.output.file, 'a'), openSync(options.output.file, 'a'), 'ipc'];
    const stopWithParent = pathToFileURL(join(here, 'stop-with-parent.js')).href;
    for (const [name, script] of [
      ['API', '../apps/api/src/main.js'],
      ['worker', '../apps/worker/src/main.js'],
    ]) {
      const child = spawn(process.execPath, ['--enable-source-maps', '--import', stopWithParent, join(here, script)], {
        env,
        stdio: stdio as never,
      });
      child.on('exit', (code, signal) => {
        if (!stopping) options.onUnexpectedExit(name, signal ? `was killed (${signal})` : `exited with code ${code}`);
      });
      children.push({ name, child });
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
