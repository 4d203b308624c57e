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

export interface TestApi {
  baseUrl: string;
  env: Env;
  app: INestApplication;
  schema: string;
  databaseUrl: string;
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

/** The URL of a new schema of the test database, not created yet (migrations create it). */
export function newSchemaUrl(): { databaseUrl: string; schema: string } {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const url = new URL(inject('databaseUrl'));
  url.searchParams.set('schema', schema);
  return { databaseUrl: url.toString(), schema };
}

/** A fresh database schema for one test file, migrated. */
export async function freshDatabase(): Promise<{ databaseUrl: string; schema: string }> {
  const fresh = newSchemaUrl();
  await applyMigrations(fresh.databaseUrl);
  return fresh;
}

/** Boots the real API on a random port against real Postgres (a fresh schema) and real Redis. */
export async function startTestApi(
  overrides: Record<string, string> = {},
  shared?: Pick<TestApi, 'databaseUrl' | 'schema'>,
): Promise<TestApi> {
  const { databaseUrl, schema } = shared ?? (await freshDatabase());
  const env = parseEnv({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_KEYS: TEST_SECRETS_KEYS,
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: 'silent',
    PORT: '0',
    QUEUE_PREFIX: `tg_${schema}`,
    WORKER_METRICS_PORT: '0',
    ...overrides,
  });
  const app = await createApiApp(env);
  await app.listen(0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const plainUrl = new URL(databaseUrl);
  plainUrl.searchParams.delete('schema');
  const pool = new pg.Pool({ connectionString: plainUrl.toString(), max: 2, options: `-c search_path=${schema}` });

  return {
    baseUrl,
    env,
    app,
    schema,
    databaseUrl,
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
