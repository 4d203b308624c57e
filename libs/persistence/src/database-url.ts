/**
 * Splits Prisma's `?schema=` convention off a Postgres URL: the schema goes to the Prisma adapter
 * and to the migration runner's search_path; the rest is a plain `pg` connection string.
 */
export function parseDatabaseUrl(databaseUrl: string): { connectionString: string; schema: string } {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema') ?? 'public';
  url.searchParams.delete('schema');
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`DATABASE_URL: schema "${schema}" must be letters, digits and "_"`);
  }
  return { connectionString: url.toString(), schema };
}
