// Postgres behind PgBouncer 1.18 in transaction mode, as managed setups run it: each transaction may land on a
// different Postgres session, and startup parameters are refused. With `?pgbouncer=true` Toolgate sends no startup
// options and no named prepared statements; without it, it refuses to start and says what to add.
// (`TEST_DATABASE_VIA=pgbouncer npm test` runs the whole suite this way.)
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { applyMigrations } from '../libs/persistence/src/index.js';
import { type LocalRedis, startLocalRedis } from '../scripts/local-services.js';
import { type ManagedRedis, describeCallsEndToEnd, singleRedis } from './support/calls-end-to-end.js';
import { eventually } from './support/eventually.js';
import { agentWithHandlerTool } from './support/fixtures.js';
import { type PgBouncer, startPgBouncer } from './support/pgbouncer.js';
import { freshDatabase, reachDatabasesThrough, startTestApi } from './support/test-api.js';
import { startTestStack } from './support/test-stack.js';
import { WebhookHandler } from './support/webhook-handler.js';

/** Few server connections for many clients: consecutive transactions of one client land on different sessions. */
const POOL_SIZE = 3;
let pgbouncer: PgBouncer;
let redis: LocalRedis;
let admin: Redis;
let managed: ManagedRedis;

beforeAll(async () => {
  pgbouncer = await startPgBouncer(inject('databaseUrl'), { poolSize: POOL_SIZE });
  reachDatabasesThrough({ pgbouncer: pgbouncer.baseUrl });
  redis = await startLocalRedis();
  admin = new Redis(redis.url);
  managed = singleRedis({ REDIS_URL: redis.url, QUEUE_PREFIX: 'tg_pgbouncer' }, admin);
});

afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
  await pgbouncer?.stop();
});

describeCallsEndToEnd('Postgres behind PgBouncer in transaction mode', () => managed, {
  'records 60 instant calls made at once, over three pooled Postgres sessions': async ({ stack, handler }) => {
    const ctx = await agentWithHandlerTool(stack.api, handler, { execution_mode: 'instant' });
    handler.on(ctx.path, () => ({ status: 200, body: '{"ok":true}' }));
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => ctx.call({ dialog_id: `i${i}` })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(60).fill(200));
    const [row] = await stack.api.sql<{ calls: number; attempts: number }>(
      `SELECT count(*)::int AS calls,
              (SELECT count(*)::int FROM tool_call_attempts a JOIN tool_calls c ON c.id = a.call_id
                WHERE c.app_id = $1 AND a.outcome = 'success') AS attempts
         FROM tool_calls WHERE app_id = $1 AND status = 'succeeded'`,
      [ctx.app.id],
    );
    expect(row).toEqual({ calls: 60, attempts: 60 });
  },
});

describe('wait calls whose first attempt the API makes, behind PgBouncer', () => {
  it('retries on schedule and ends each call succeeded, every attempt on record', async () => {
    const handler = await new WebhookHandler().start();
    const stack = await startTestStack({ REDIS_URL: redis.url, QUEUE_PREFIX: 'tg_pgb_wait', RETRY_TIME_SCALE: '0.2' });
    try {
      const ctx = await agentWithHandlerTool(stack.api, handler, { execution_mode: 'wait', retry_window: '5m' });
      handler.on(ctx.path, ({ attempt }) => (attempt === 1 ? { status: 503 } : { status: 200, body: '{"ok":true}' }));
      const ids = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => (await ctx.call({ dialog_id: `w${i}` })).body.call_id as string),
      );
      await eventually(
        async () => {
          const rows = await stack.api.sql<{ status: string; attempts: number }>(
            `SELECT status, (SELECT count(*)::int FROM tool_call_attempts a WHERE a.call_id = c.id) AS attempts
               FROM tool_calls c WHERE id = ANY($1)`,
            [ids],
          );
          expect(rows).toEqual(Array(20).fill({ status: 'succeeded', attempts: 2 }));
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      );
    } finally {
      await stack.close();
      await handler.stop();
    }
  }, 40_000);
});

describe('starting behind PgBouncer', () => {
  it('without ?pgbouncer=true, refuses to start and says what to add', async () => {
    const database = await freshDatabase();
    const url = new URL(database.databaseUrl);
    url.searchParams.delete('pgbouncer');
    await expect(startTestApi({ DATABASE_URL: url.toString() }, database)).rejects.toThrow(
      /unsupported startup parameter.*add \?pgbouncer=true to DATABASE_URL/s,
    );
  });

  it("refuses a schema the role's search_path does not find, naming the fix", async () => {
    const database = await freshDatabase();
    const url = new URL(database.databaseUrl);
    url.searchParams.set('schema', 'elsewhere');
    await expect(startTestApi({ DATABASE_URL: url.toString() }, database)).rejects.toThrow(
      /finds "public", not "elsewhere": ALTER ROLE <user> SET search_path TO "elsewhere"/,
    );
  });

  it('applies the migrations once when two deployments run them at the same time through the pooler', async () => {
    const name = `t_pgb_${Date.now()}`;
    const postgres = new pg.Client({ connectionString: inject('databaseUrl') });
    await postgres.connect();
    try {
      await postgres.query(`CREATE DATABASE "${name}"`);
    } finally {
      await postgres.end();
    }
    const url = `${new URL(name, pgbouncer.baseUrl).href}?pgbouncer=true`;
    const [first, second] = await Promise.all([applyMigrations(url), applyMigrations(url)]);
    expect(first.length + second.length).toBeGreaterThan(0);
    expect([...first, ...second].sort()).toEqual([...new Set([...first, ...second])].sort());
    expect(await applyMigrations(url)).toEqual([]);
  });
});
