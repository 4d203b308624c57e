/** How Toolgate reaches Postgres, read off DATABASE_URL. */
export interface DatabaseTarget {
  /** A plain `pg` connection string: the URL without Toolgate's own parameters. */
  connectionString: string;
  /** Prisma's `?schema=` convention: where the tables are (default `public`). */
  schema: string;
  /**
   * `?pgbouncer=true` (Prisma's name for it): Postgres is reached through a pooler in transaction mode, which
   * keeps no session between transactions and refuses startup parameters. Then no named prepared statements and no
   * startup options: the schema and the statement timeout come from the role (see docs/operations.md).
   */
  pooled: boolean;
}

export function parseDatabaseUrl(databaseUrl: string): DatabaseTarget {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema') ?? 'public';
  const pgbouncer = url.searchParams.get('pgbouncer');
  url.searchParams.delete('schema');
  url.searchParams.delete('pgbouncer');
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`DATABASE_URL: schema "${schema}" must be letters, digits and "_"`);
  }
  if (pgbouncer !== null && pgbouncer !== 'true' && pgbouncer !== 'false') {
    throw new Error(`DATABASE_URL: pgbouncer must be "true" or "false", not "${pgbouncer}"`);
  }
  return { connectionString: url.toString(), schema, pooled: pgbouncer === 'true' };
}
