import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import pg from 'pg';
import { inject } from 'vitest';
import { type Env, parseEnv } from '../../libs/config/src/index.js';
import { applyMigrations } from '../../libs/persistence/src/index.js';
import { createApiApp } from '../../apps/api/src/create-api-app.js';
import { TEST_JWT_SECRET } from './tokens.js';

export const TEST_SECRETS_KEYS = `test1:${Buffer.alloc(32, 7).toString('base64')}`;

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** The API, and the fresh database it runs on (another replica may share it). */
export interface TestApi extends FreshDatabase {
  baseUrl: string;
  env: Env;
  app: INestApplication;
  request: ReturnType<typeof requester>;
  sql<T extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

type RequestOptions = { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> };

/** An HTTP client for a Toolgate base URL: JSON in, parsed JSON (or text) out. */
export function requester(baseUrl: string) {
  return async function request<T = any>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  };
}

/** The URL of a new schema of the test database, straight to Postgres, not created yet (migrations create it). */
export function newSchemaUrl(): { databaseUrl: string; schema: string } {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const url = new URL(inject('databaseUrl'));
  url.searchParams.set('schema', schema);
  return { databaseUrl: url.toString(), schema };
}

/** A test file's own tables: the URL Toolgate is given, and how the test reaches them itself. */
export interface FreshDatabase {
  /** Unique to the test file (the schema, or the database through a pooler): a key for its Redis names too. */
  name: string;
  databaseUrl: string;
  schema: string;
  /** Straight to Postgres (not through a pooler), for the test's own checks with search_path `schema`. */
  directUrl: string;
}

/** Where this file's databases are reached: straight, or through a PgBouncer (its URL without a database). */
export type DatabaseVia = 'direct' | { pgbouncer: string };
let chosenVia: DatabaseVia | undefined;

/** Makes this test file's fresh databases reachable through the PgBouncer at `baseUrl` (or straight again). */
export function reachDatabasesThrough(via: DatabaseVia): void {
  chosenVia = via;
}

/**
 * A fresh database for one test file, migrated: a schema of its own, or, through PgBouncer (`TEST_DATABASE_VIA`, or
 * the file's choice), a database of its own with its tables in public, since a pooled session keeps no search_path.
 */
export async function freshDatabase(): Promise<FreshDatabase> {
  const postgres = inject('databaseUrl');
  const pgbouncer = inject('pgbouncerUrl');
  const via = chosenVia ?? (pgbouncer ? { pgbouncer } : 'direct');
  if (via === 'direct') {
    const { databaseUrl, schema } = newSchemaUrl();
    await applyMigrations(databaseUrl);
    return { name: schema, databaseUrl, schema, directUrl: postgres };
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgres });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const direct = new URL(postgres);
  direct.pathname = `/${name}`;
  const pooled = new URL(name, via.pgbouncer);
  pooled.searchParams.set('pgbouncer', 'true');
  await applyMigrations(pooled.toString()); // through the pooler, as a deployment behind one runs them
  return { name, databaseUrl: pooled.toString(), schema: 'public', directUrl: direct.toString() };
}

/** Boots the real API on a random port against real Postgres (a fresh schema) and real Redis. */
export async function startTestApi(overrides: Record<string, string> = {}, shared?: FreshDatabase): Promise<TestApi> {
  const database = shared ?? (await freshDatabase());
  const { databaseUrl, schema, directUrl } = database;
  const env = parseEnv({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_KEYS: TEST_SECRETS_KEYS,
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: 'silent',
    PORT: '0',
    QUEUE_PREFIX: `tg_${database.name}`,
    WORKER_METRICS_PORT: '0',
    ...overrides,
  });
  const app = await createApiApp(env);
  await app.listen(0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const pool = new pg.Pool({ connectionString: directUrl, max: 2, options: `-c search_path=${schema}` });

  return {
    baseUrl,
    env,
    app,
    name: database.name,
    schema,
    databaseUrl,
    directUrl,
    request: requester(baseUrl),
    async sql(text, values) {
      return (await pool.query(text, values)).rows;
    },
    async close() {
      await app.close();
      await pool.end();
    },
  };
}
