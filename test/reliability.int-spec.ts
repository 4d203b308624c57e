// Nothing is lost, secrets stay secret: the worker and the API run as real processes against a
// Redis of this file's own (so FLUSHALL and a key scan touch nothing else).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { freePort } from '../scripts/local-services.js';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { type AppProcess, type ProcessFixture, processFixture, startAppProcess } from './support/processes.js';
import { requester } from './support/test-api.js';
import { WebhookHandler } from './support/webhook-handler.js';

const PRIVATE_VALUE = 'pd-1f6e0c-never-in-redis-or-logs';
let fixture: ProcessFixture;
let handler: WebhookHandler;
let api: AppProcess;
let worker: AppProcess;
let env: Record<string, string>;
let request: ReturnType<typeof requester>;
let db: ProcessFixture['db'];
const outputs: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  fixture = await processFixture({
    RETRY_TIME_SCALE: '0.2',
    RECONCILE_INTERVAL_MS: '300',
    LOG_LEVEL: 'debug',
    PORT: String(port),
  });
  ({ env, db } = fixture);
  handler = await new WebhookHandler().start();
  api = startAppProcess('api', env);
  worker = startAppProcess('worker', env);
  await api.waitForOutput(/Toolgate API on/);
  await worker.waitForOutput(/Toolgate worker started/);
  request = requester(`http://127.0.0.1:${port}`);
});

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await api?.kill('SIGTERM');
  await handler?.stop();
  await fixture?.stop();
});

/** The calls' statuses, once every one has ended. */
async function callsEnded(ids: string[], timeoutMs: number): Promise<Record<string, string>> {
  return eventually(
    async () => {
      const { rows } = await db.query<{ id: string; status: string }>(
        'SELECT id, status FROM tool_calls WHERE id = ANY($1)',
        [ids],
      );
      const statuses = Object.fromEntries(rows.map((r) => [r.id, r.status]));
      expect(Object.keys(statuses).sort(), 'every call is stored').toEqual([...ids].sort());
      for (const status of rows.map((r) => r.status)) expect(status).toBeOneOf(['succeeded', 'failed', 'cancelled']);
      return statuses;
    },
    { timeoutMs, intervalMs: 200 },
  );
}

async function setup(toolOverrides: Record<string, unknown>) {
  const path = `/hook/${Math.random().toString(36).slice(2)}`;
  const ctx = await agentWithTools(
    { request },
    [httpTool({ handler_url: handler.url(path), configurable: true, ...toolOverrides })],
    {
      instances: { find_customer: { private_data: { token: PRIVATE_VALUE } } },
    },
  );
  handler.secrets = [ctx.app.webhook_secret];
  const toolName = agentFacingName(ctx.app);
  const call = async () => {
    const response = await request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: toolName, dialog_id: 'd', arguments: { customer_id: 'c' } },
    });
    expect(response.status).toBe(202);
    return response.body.call_id as string;
  };
  return { ...ctx, path, call };
}

describe('a worker killed while attempts are in flight', () => {
  it('loses no call: after a restart every accepted call ends in a terminal status', async () => {
    const ctx = await setup({ execution_mode: 'wait', retry_window: '5m', attempt_timeout_s: 10 });
    // First attempts hang for 3 s (the worker dies during them); later ones succeed.
    handler.on(ctx.path, ({ attempt }) =>
      attempt === 1 ? { status: 200, body: 'late', delayMs: 3000 } : { status: 200, body: 'ok' },
    );
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(await ctx.call());
    await eventually(() => expect(handler.at(ctx.path).length).toBeGreaterThanOrEqual(10), {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    outputs.push(worker.output());
    await worker.kill('SIGKILL');

    worker = startAppProcess('worker', env);
    await worker.waitForOutput(/Toolgate worker started/);
    const statuses = await callsEnded(ids, 60_000);
    expect(Object.values(statuses)).toHaveLength(20);
    expect(Object.values(statuses).every((s) => s === 'succeeded')).toBe(true);
    // At-least-once: each event reached the handler, some twice; the handler dedupes by event_id.
    const events = new Set(handler.at(ctx.path).map((r) => r.event.event_id));
    expect(events.size).toBe(20);
  }, 90_000);
});

describe('Redis restarting empty', () => {
  it('loses no call: the reconciler re-queues every call that waited for its next attempt', async () => {
    const ctx = await setup({ execution_mode: 'background', retry_window: '5m' });
    // Attempt 1 fails; attempt 2 is due 3 s later (15 s × 0.2): Redis is emptied in between.
    handler.on(ctx.path, ({ attempt }) => (attempt === 1 ? { status: 503 } : { status: 200, body: 'ok' }));
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) ids.push(await ctx.call());
    await eventually(() => expect(handler.at(ctx.path).length).toBeGreaterThanOrEqual(10), {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    // Wait until every first attempt is recorded and the second one is waiting in Redis.
    await eventually(
      async () => {
        const { rows } = await db.query(
          "SELECT count(*)::int AS n FROM tool_calls WHERE id = ANY($1) AND status = 'queued' AND next_attempt_n = 2",
          [ids],
        );
        expect(rows[0].n).toBe(10);
      },
      { timeoutMs: 4000, intervalMs: 20 },
    );
    const client = new Redis(fixture.redisUrl);
    expect(await client.dbsize()).toBeGreaterThan(0);
    await client.flushall();
    expect(await client.dbsize()).toBe(0);
    client.disconnect();

    const statuses = await callsEnded(ids, 30_000);
    expect(Object.values(statuses).every((s) => s === 'succeeded')).toBe(true);
    const perEvent = new Map<string, number>();
    for (const r of handler.at(ctx.path)) perEvent.set(r.event.event_id, (perEvent.get(r.event.event_id) ?? 0) + 1);
    expect([...perEvent.values()].every((count) => count >= 2)).toBe(true);
  }, 60_000);
});

describe('secrets', () => {
  it('appear in no Redis key or value and in no log line of the API or the worker', async () => {
    const ctx = await setup({ execution_mode: 'background', retry_window: '5m' });
    handler.on(ctx.path, ({ attempt }) => (attempt === 1 ? { status: 500 } : { status: 200, body: 'ok' }));
    const id = await ctx.call();
    // Scan while the second attempt is still waiting in Redis.
    await eventually(() => expect(handler.at(ctx.path).length).toBeGreaterThanOrEqual(1), {
      timeoutMs: 5000,
      intervalMs: 20,
    });
    expect(handler.at(ctx.path)[0].event.private_data).toEqual({ token: PRIVATE_VALUE });

    // The API made attempt 1; attempt 2's job is added once attempt 1 is recorded, a moment after the handler got it.
    const redisText = await eventually(
      async () => {
        const text = await redisDump();
        expect(text).toContain(id); // the job is there, by id
        return text;
      },
      { timeoutMs: 2500, intervalMs: 20 },
    );
    const secretKey = ctx.app.webhook_secret.slice('whsec_'.length);
    for (const secret of [PRIVATE_VALUE, ctx.app.webhook_secret, secretKey]) {
      expect(redisText).not.toContain(secret);
      expect(api.output()).not.toContain(secret);
      expect(worker.output()).not.toContain(secret);
      for (const earlier of outputs) expect(earlier).not.toContain(secret);
    }
    // The logs are JSON lines; every request line carries its request id; authorization is redacted.
    const apiLines = api
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '');
    const parsed = apiLines.map((line) => JSON.parse(line) as Record<string, any>);
    const requests = parsed.filter((line) => line.msg === 'request completed');
    expect(requests.length).toBeGreaterThan(5);
    for (const line of requests) {
      expect(line.request_id).toEqual(expect.any(String));
      expect(line.req.headers.authorization).toBe('[Redacted]');
    }
    expect(api.output()).not.toContain(ctx.agent);
    expect(api.output()).not.toContain(ctx.dev);
    for (const line of worker
      .output()
      .split('\n')
      .filter((l) => l.trim() !== ''))
      expect(() => JSON.parse(line), line).not.toThrow();
    await callsEnded([id], 15_000);
  }, 30_000);
});

/** Every Redis key with its value, as text. */
async function redisDump(): Promise<string> {
  const client = new Redis(fixture.redisUrl);
  try {
    const dump: string[] = [];
    for (const key of await client.keys('*')) {
      dump.push(key);
      const type = await client.type(key);
      if (type === 'string') dump.push((await client.get(key)) ?? '');
      if (type === 'hash') dump.push(JSON.stringify(await client.hgetall(key)));
      if (type === 'list') dump.push(JSON.stringify(await client.lrange(key, 0, -1)));
      if (type === 'set') dump.push(JSON.stringify(await client.smembers(key)));
      if (type === 'zset') dump.push(JSON.stringify(await client.zrange(key, '0', '-1')));
      if (type === 'stream') dump.push(JSON.stringify(await client.xrange(key, '-', '+')));
    }
    return dump.join('\n');
  } finally {
    client.disconnect();
  }
}
