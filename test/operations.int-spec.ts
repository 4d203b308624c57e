import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { Queue, QueueEvents } from 'bullmq';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseEnv } from '../libs/config/src/index.js';
import { ReencryptSecrets } from '../libs/domain/src/index.js';
import {
  EncryptedColumnsRepository,
  PrismaService,
  applyMigrations,
  findMigrationsDir,
} from '../libs/persistence/src/index.js';
import { TOOL_CALL_DELIVERY_QUEUE } from '../libs/queue/src/index.js';
import { createRedisConnection } from '../libs/redis/src/index.js';
import { SecretBox, parseSecretKeys } from '../libs/secrets/src/index.js';
import { WorkerModule } from '../apps/worker/src/worker.module.js';
import { TEST_SECRETS_KEYS, type TestApi, freshDatabase, startTestApi } from './support/test-api.js';
import { developerToken } from './support/tokens.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('health', () => {
  it('is live', async () => {
    expect(await api.request('GET', '/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('is ready when Postgres and Redis answer', async () => {
    expect(await api.request('GET', '/health/ready')).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'up', redis: 'up' } },
    });
  });

  it('answers 503 naming the dependency that is down', async () => {
    const broken = await startTestApi({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const response = await broken.request('GET', '/health/ready');
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({
        status: 503,
        checks: { postgres: 'up', redis: 'down' },
        detail: 'Not ready: redis not reachable.',
      });
    } finally {
      await broken.close();
    }
  });
});

describe('OpenAPI', () => {
  it('serves the UI at /docs and the document at /openapi.json, built from the validating schemas', async () => {
    const ui = await api.request('GET', '/docs');
    expect(ui.status).toBe(200);
    expect(ui.headers.get('content-type')).toMatch(/text\/html/);
    const doc = await api.request('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/apps',
        '/v1/apps/{app_id}',
        '/v1/apps/{app_id}/agent-tools',
        '/v1/apps/{app_id}/tools/{tool_id}',
        '/health/ready',
      ]),
    );
    const createTool = doc.body.paths['/v1/apps/{app_id}/tools'].post.requestBody.content['application/json'].schema;
    expect(createTool.required).toEqual(
      expect.arrayContaining(['name', 'title', 'description', 'handler_url', 'execution_mode']),
    );
    expect(createTool.properties.retry_window.enum ?? createTool.properties.retry_window.anyOf?.[0]?.enum).toEqual([
      '5m',
      '3h',
      '1d',
    ]);
    expect(createTool.properties.parameters.maxItems).toBe(32);
  });
});

describe('migrations', () => {
  it('apply once on a fresh schema, then find nothing to do, recording Prisma-compatible checksums', async () => {
    const { databaseUrl } = await freshDatabase();
    expect(await applyMigrations(databaseUrl)).toEqual([]);
    const dir = findMigrationsDir();
    const names = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const rows = await api.sql(
      'SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const row of rows) {
      const sql = readFileSync(join(dir, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(row.finished_at).not.toBeNull();
    }
  });
});

describe('secret key rotation', () => {
  it('re-encrypts every secret under the new first key; the old key can then be dropped', async () => {
    const token = await developerToken('dev_rotation');
    const created = await api.request('POST', '/v1/apps', { token, body: { name: 'rotation-app', display_name: 'R' } });
    await api.request('PUT', `/v1/apps/${created.body.id}/agent-tools`, {
      token,
      body: {
        enabled: true,
        mode: 'mcp',
        mcp: {
          url: 'https://m.example.com/mcp',
          auth_header_value: 'Bearer mcp-secret',
          auth_header_value_action: 'replace',
        },
      },
    });
    await api.request('POST', `/v1/apps/${created.body.id}/webhook-secret/rotate`, { token });

    const newKey = `test2:${Buffer.alloc(32, 9).toString('base64')}`;
    const rotated = new SecretBox(parseSecretKeys(`${newKey},${TEST_SECRETS_KEYS}`));
    const prisma = new PrismaService(api.databaseUrl);
    try {
      const report = await new ReencryptSecrets(new EncryptedColumnsRepository(prisma), rotated).execute(1);
      expect(report.reencrypted['apps.webhook_secret_enc']).toBe(1);
      expect(report.reencrypted['apps.retired_webhook_secrets']).toBe(1);
      expect(report.reencrypted['apps.mcp_auth_header_value_enc']).toBe(1);
      const again = await new ReencryptSecrets(new EncryptedColumnsRepository(prisma), rotated).execute();
      expect(Object.values(again.reencrypted).every((count) => count === 0)).toBe(true);
      expect(again.alreadyCurrent).toBe(3);
    } finally {
      await prisma.$disconnect();
    }
    const [row] = await api.sql(
      `SELECT webhook_secret_enc, retired_webhook_secrets->0->>'secret_enc' AS retired_secret_enc, mcp_auth_header_value_enc
         FROM apps WHERE id = $1`,
      [created.body.id],
    );
    const onlyNew = new SecretBox(parseSecretKeys(newKey));
    for (const value of Object.values<string>(row)) expect(decodeProtectedHeader(value).kid).toBe('test2');
    expect(await onlyNew.decrypt(row.mcp_auth_header_value_enc)).toBe('Bearer mcp-secret');
    expect(await onlyNew.decrypt(row.webhook_secret_enc)).toMatch(/^whsec_/);
  });
});

describe('worker', () => {
  it('boots against Redis, consumes the delivery queue and fails a job nobody processes, saying why', async () => {
    const prefix = `test-${process.pid}-${Date.now()}`;
    const env = parseEnv({
      DATABASE_URL: api.databaseUrl,
      REDIS_URL: inject('redisUrl'),
      QUEUE_PREFIX: prefix,
      SECRETS_KEYS: TEST_SECRETS_KEYS,
      LOG_LEVEL: 'silent',
    });
    const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(env), { logger: false });
    await worker.init();
    const connection = createRedisConnection(inject('redisUrl'));
    const queue = new Queue(TOOL_CALL_DELIVERY_QUEUE, { connection, prefix });
    const events = new QueueEvents(TOOL_CALL_DELIVERY_QUEUE, {
      connection: createRedisConnection(inject('redisUrl')),
      prefix,
    });
    try {
      await events.waitUntilReady();
      const job = await queue.add('no-such-job', { callId: 'call_x' });
      const failed = await new Promise<string>((resolve) => {
        events.on('failed', ({ jobId, failedReason }) => jobId === job.id && resolve(failedReason));
      });
      expect(failed).toBe('no processor for job name "no-such-job"');
    } finally {
      await events.close();
      await queue.close();
      await worker.close();
      connection.disconnect();
    }
  });
});

describe('an unexpected error', () => {
  it('is a 500 with a request id, and no SQL, table name or stack', async () => {
    const broken = await startTestApi();
    try {
      const token = await developerToken('dev_broken');
      await broken.sql('DROP TABLE http_tools CASCADE');
      const created = await broken.request('POST', '/v1/apps', {
        token,
        body: { name: 'broken-app', display_name: 'B' },
      });
      const response = await broken.request('GET', `/v1/apps/${created.body.id}/tools`, { token });
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toEqual({
        type: 'urn:toolgate:problem:internal_error',
        title: 'Internal Server Error',
        status: 500,
        detail: expect.stringMatching(/^Internal error\. Quote request id [0-9a-f-]{36} when reporting it\.$/),
        request_id: expect.any(String),
      });
      expect(response.text).not.toMatch(/http_tools|SELECT|relation|prisma|at /i);
    } finally {
      await broken.close();
    }
  });
});

describe('the queue dashboard', () => {
  it('is for operator tokens only, by header or by a one-time ?token= that becomes a cookie', async () => {
    const { signToken } = await import('./support/tokens.js');
    const operator = await signToken({ role: 'operator' });
    expect((await api.request('GET', '/admin/queues')).status).toBe(401);
    const developer = await api.request('GET', '/admin/queues', { token: await developerToken('dev_x') });
    expect(developer.status).toBe(403);
    expect(developer.headers.get('content-type')).toMatch(/problem\+json/);

    const page = await api.request('GET', '/admin/queues', { token: operator });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<html/i);
    const queues = await api.request('GET', '/admin/queues/api/queues', { token: operator });
    expect(queues.status).toBe(200);
    expect(JSON.stringify(queues.body)).toContain('tool-call-delivery');

    const viaQuery = await fetch(`${api.baseUrl}/admin/queues?token=${operator}`, { redirect: 'manual' });
    expect(viaQuery.status).toBe(303);
    expect(viaQuery.headers.get('location')).toBe('/admin/queues');
    const cookie = viaQuery.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^toolgate_operator=.+; HttpOnly; SameSite=Strict; Path=\/admin/);
    const withCookie = await fetch(`${api.baseUrl}/admin/queues/api/queues`, {
      headers: { cookie: cookie.split(';')[0] },
    });
    expect(withCookie.status).toBe(200);
  });

  it('takes JSON bodies, and answers a path it does not have with a problem+json 404', async () => {
    const { signToken } = await import('./support/tokens.js');
    const operator = await signToken({ role: 'operator' });
    const concurrency = (body: unknown) =>
      api.request('PUT', '/admin/queues/api/queues/tool-call-delivery/concurrency', { token: operator, body });
    expect((await concurrency({ concurrency: 7 })).status).toBe(200);
    try {
      const { body } = await api.request('GET', '/admin/queues/api/queues', { token: operator });
      const queue = (body as { queues: { name: string; globalConcurrency: number | null }[] }).queues.find(
        (q) => q.name === 'tool-call-delivery',
      );
      expect(queue?.globalConcurrency).toBe(7);
    } finally {
      expect((await concurrency({ concurrency: 0 })).status).toBe(200);
    }
    const missing = await api.request('GET', '/admin/queues/api/no-such-page', { token: operator });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/problem\+json/);
    expect(missing.body.detail).toMatch(/no page \/admin\/queues\/api\/no-such-page/);
    expect((await api.request('GET', '/admin/queues/api/no-such-page')).status).toBe(401);
  });

  it('answers a NUL in a query value with a problem+json 400, not a 500', async () => {
    const { signToken } = await import('./support/tokens.js');
    const operator = await signToken({ role: 'operator' });
    const nul = await api.request('GET', '/admin/queues/api/queues?status=%00', { token: operator });
    expect(nul.status).toBe(400);
    expect(nul.headers.get('content-type')).toMatch(/problem\+json/);
    expect(nul.body.detail).toMatch(/NUL/);
  });
});
