// Calls end to end on a given Redis: the real API (two replicas) and worker, a real handler. What every kind of managed
// Redis must carry: accepted calls queued, a failed attempt retried, long-polls woken by pub/sub on another replica,
// jobs lost from Redis re-queued by the reconciler, a tool change heard by every replica.
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { agentWithHandlerTool } from './fixtures.js';
import { type TestApi, startTestApi } from './test-api.js';
import { type TestStack, startTestStack } from './test-stack.js';
import { WebhookHandler } from './webhook-handler.js';

export interface ManagedRedis {
  /** What Toolgate is given: REDIS_URL, and REDIS_TLS_CA_FILE, REDIS_CLUSTER or QUEUE_PREFIX as it needs. */
  env: Record<string, string>;
  /** A connection of the test's own (with rights to flush), commands routed to the node of their key. */
  client: Redis | Cluster;
  /** Subscribers of a channel, over every node. */
  subscribers(channel: string): Promise<number>;
  /** Empties Redis (every node): the jobs are lost. */
  flushAll(): Promise<void>;
}

/** A single (not clustered) Redis as the test's own `admin` connection sees it, Toolgate given `env`. */
export function singleRedis(env: Record<string, string>, admin: Redis): ManagedRedis {
  return {
    env,
    client: admin,
    subscribers: async (channel) => Number(((await admin.pubsub('NUMSUB', channel)) as [string, number])[1]),
    flushAll: async () => void (await admin.flushall()),
  };
}

/** Retry offsets × 0.2: attempt 2 of the `5m` window is due 3 s after attempt 1. */
const RETRY_TIME_SCALE = 0.2;

/** What runs the calls: the API with an in-process worker, a second API replica, the handler. */
export interface RunningToolgate {
  stack: TestStack;
  replica: TestApi;
  handler: WebhookHandler;
}

/** `thenWhileRunning`: checks run after the calls, while the API and worker still hold their connections. */
export function describeCallsEndToEnd(
  name: string,
  redis: () => ManagedRedis,
  thenWhileRunning: Record<string, (running: RunningToolgate) => Promise<void>> = {},
): void {
  describe(`calls end to end on ${name}`, () => {
    let stack: TestStack;
    let replica: TestApi;
    let handler: WebhookHandler;

    beforeAll(async () => {
      const env = {
        ...redis().env,
        API_DELIVERY_CONCURRENCY: '0', // every attempt goes through the queue
        RETRY_TIME_SCALE: String(RETRY_TIME_SCALE),
        RECONCILE_INTERVAL_MS: '300',
      };
      handler = await new WebhookHandler().start();
      stack = await startTestStack(env);
      replica = await startTestApi({ ...env, QUEUE_PREFIX: stack.api.env.QUEUE_PREFIX }, stack.api);
    });
    afterAll(async () => {
      await replica?.close();
      await stack?.close();
      await handler?.stop();
    });

    it('is ready: Redis answers', async () => {
      await eventually(async () =>
        expect(await replica.request('GET', '/health/ready')).toMatchObject({
          status: 200,
          body: { checks: { redis: 'up' } },
        }),
      );
    });

    it('queues accepted calls, retries a failed attempt, and wakes long-polls on another replica', async () => {
      const ctx = await agentWithHandlerTool(stack.api, handler, { execution_mode: 'background', retry_window: '5m' });
      handler.on(ctx.path, ({ attempt }) => (attempt === 1 ? { status: 503 } : { status: 200, body: 'ok' }));
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const accepted = await ctx.call({ dialog_id: `d${i}` });
        expect(accepted.status).toBe(202);
        ids.push(accepted.body.call_id as string);
      }
      const channel = `${stack.api.env.QUEUE_PREFIX}:tool-call-finished`;
      const polls = ids.map(async (id, i) => {
        const response = await replica.request('GET', `${ctx.base}/tool-calls/${id}?wait=20`, { token: ctx.agent });
        return { dialog: `d${i}`, answeredAt: Date.now(), response };
      });
      await eventually(async () => expect(await redis().subscribers(channel)).toBeGreaterThanOrEqual(1));
      for (const { dialog, answeredAt, response } of await Promise.all(polls)) {
        expect(response.status).toBe(200);
        expect(response.body.status).toBe('succeeded');
        const received = handler.at(ctx.path).filter((r) => r.event.dialog_id === dialog);
        expect(received).toHaveLength(2);
        // Woken by the finish event: a long-poll that only re-read Postgres would answer up to 15 s later.
        expect(answeredAt - received[1].receivedAt).toBeLessThan(1000);
      }
    }, 30_000);

    it('re-queues, by the reconciler, the calls whose jobs Redis lost', async () => {
      const ctx = await agentWithHandlerTool(stack.api, handler, { execution_mode: 'background', retry_window: '5m' });
      handler.on(ctx.path, ({ attempt }) => (attempt === 1 ? { status: 503 } : { status: 200, body: 'ok' }));
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await ctx.call({ dialog_id: `d${i}` })).body.call_id as string);
      // Every first attempt recorded, every second one waiting in Redis: then Redis is emptied.
      await eventually(
        async () => {
          const [row] = await stack.api.sql<{ n: number }>(
            "SELECT count(*)::int AS n FROM tool_calls WHERE id = ANY($1) AND status = 'queued' AND next_attempt_n = 2",
            [ids],
          );
          expect(row.n).toBe(5);
        },
        { timeoutMs: 2500, intervalMs: 20 },
      );
      // Each second attempt is queued right after its first one is on record: wait until all five are in Redis.
      const delayed = `${stack.api.env.QUEUE_PREFIX}:tool-call-delivery:delayed`;
      await eventually(async () => expect(await redis().client.zcard(delayed)).toBe(5), { timeoutMs: 2500 });
      await redis().flushAll();
      expect(await redis().client.zcard(delayed)).toBe(0);

      await eventually(
        async () => {
          const rows = await stack.api.sql<{ status: string }>('SELECT status FROM tool_calls WHERE id = ANY($1)', [
            ids,
          ]);
          expect(rows.map((row) => row.status)).toEqual(Array(5).fill('succeeded'));
        },
        { timeoutMs: 20_000, intervalMs: 100 },
      );
      for (let i = 0; i < 5; i += 1)
        expect(handler.at(ctx.path).filter((r) => r.event.dialog_id === `d${i}`)).toHaveLength(2);
    }, 30_000);

    it('tells every replica of a tool change (toolset generations)', async () => {
      // `auto`: the change reaches the agent without the project's approval (decision 032); this is about replicas.
      const ctx = await agentWithHandlerTool(stack.api, handler, {}, { approveChanges: 'auto' });
      const list = (api: TestApi) => api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
      expect((await list(replica)).body.data).toHaveLength(1);
      const patched = await stack.api.request('PATCH', `/v1/apps/${ctx.app.id}/tools/${ctx.tools[0].id}`, {
        token: ctx.dev,
        body: { agent_description: 'New words for the model' },
      });
      expect(patched.status).toBe(200);
      await eventually(async () =>
        expect((await list(replica)).body.data[0].description).toBe('[App "Shop"] New words for the model'),
      );
    });

    for (const [title, check] of Object.entries(thenWhileRunning)) it(title, () => check({ stack, replica, handler }));
  });
}
