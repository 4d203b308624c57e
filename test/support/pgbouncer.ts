// A real PgBouncer in transaction mode in front of the tests' Postgres: Debian's `pgbouncer` package (1.18), with
// its stock startup-parameter list (`extra_float_digits` only), as Neon, Supabase-style poolers and most managed
// setups run it. Every database name is passed through to the same-named database of the Postgres behind it.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from '../../scripts/local-services.js';

export interface PgBouncer {
  /** `postgresql://…@127.0.0.1:<port>/` : append a database name. */
  baseUrl: string;
  stop(): Promise<void>;
}

function findPgBouncer(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/usr/local/bin'];
  const found = dirs.map((dir) => join(dir, 'pgbouncer')).find((path) => existsSync(path));
  if (!found) {
    throw new Error(
      'The tests run Toolgate behind a real PgBouncer, and no `pgbouncer` was found: ' +
        'apt-get install pgbouncer (Debian/Ubuntu), brew install pgbouncer (macOS).',
    );
  }
  return found;
}

/** Starts PgBouncer in transaction mode in front of the Postgres of `postgresUrl` (its user and password). */
export async function startPgBouncer(postgresUrl: string, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const binary = findPgBouncer();
  const target = new URL(postgresUrl);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-pgbouncer-'));
  chmodSync(dir, 0o755);
  const server = [
    `host=${target.hostname}`,
    `port=${target.port || 5432}`,
    `user=${decodeURIComponent(target.username)}`,
    target.password ? `password=${decodeURIComponent(target.password)}` : '',
  ].join(' ');
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = ${server}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // Any client user, logged in to Postgres as the user above: the tests' own credentials do not matter here.
      'auth_type = any',
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 10}`,
      'max_client_conn = 5000',
      'max_db_connections = 0',
      'ignore_startup_parameters = extra_float_digits',
      'server_reset_query =',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  chmodSync(config, 0o644);
  // PgBouncer refuses to run as root: as root it switches to the `postgres` user (Postgres's packages make it).
  const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  const child: ChildProcess = spawn(binary, [...asUser, config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const until = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PgBouncer did not start on port ${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    baseUrl: `postgresql://toolgate@127.0.0.1:${port}/`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
