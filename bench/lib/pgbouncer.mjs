// BENCH_PGBOUNCER=1: Toolgate reaches Postgres through a PgBouncer in transaction mode (Debian's `pgbouncer`), one per
// stack, whose server sessions start on the stack's schema (a role's search_path would do the same in production).
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, start } from './procs.mjs';

export const VIA_PGBOUNCER = process.env.BENCH_PGBOUNCER === '1';

/**
 * A PgBouncer in front of the Postgres of `postgresUrl`, its sessions on `schema`. Returns {proc, url}: `url` is
 * the Postgres URL through it, with `?pgbouncer=true&schema=`.
 * @param {string} postgresUrl
 * @param {string} schema
 */
export async function startPgBouncer(postgresUrl, schema) {
  const target = new URL(postgresUrl);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-pgbouncer-'));
  chmodSync(dir, 0o755);
  const config = join(dir, 'pgbouncer.ini');
  const server = `host=${target.hostname} port=${target.port || 5432} user=${target.username || 'postgres'}`;
  writeFileSync(
    config,
    [
      '[databases]',
      `* = ${server} connect_query='SET search_path TO "${schema}"'`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      // As many server sessions as Toolgate's two pools may open (20 each): the pooler, not a smaller pool, is weighed.
      'default_pool_size = 40',
      'max_client_conn = 1000',
      'ignore_startup_parameters = extra_float_digits',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  chmodSync(config, 0o644);
  const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  const proc = start('pgbouncer', 'pgbouncer', [...asUser, config]);
  await proc.waitFor(/process up/, 10_000);
  const url = new URL(target.pathname, `postgresql://toolgate@127.0.0.1:${port}`);
  url.searchParams.set('pgbouncer', 'true');
  url.searchParams.set('schema', schema);
  return { proc, url: url.toString() };
}
