// A call that is late is not a call that is lost: the reconciler re-queues only the overdue calls whose job Redis
// no longer holds. A Redis of this file's own, so that FLUSHALL touches nothing else.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReconcileDeliveries } from '../libs/domain/src/index.js';
import { type LocalService, startLocalRedis } from '../scripts/local-services.js';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { WebhookHandler } from './support/webhook-handler.js';

const FIRST_ANSWER_DELAY_MS = 6000;
let redis: LocalService;
let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  redis = await startLocalRedis();
  handler = await new WebhookHandler().start();
  // One delivery of the app at a time, all by the worker (none in the API), and no reconciler run but the ones this
  // test makes.
  const env = {
    REDIS_URL: redis.url,
    APP_DELIVERY_CONCURRENCY: '1',
    API_DELIVERY_CONCURRENCY: '0',
    RECONCILE_INTERVAL_MS: '600000',
  };
  stack = await startTestStack(env);
}, 60_000);
afterAll(async () => {
  await handler?.stop();
  await stack?.close();
  await redis?.stop();
});

describe('the reconciler, with calls late behind a busy app', () => {
  it('leaves the jobs Redis still holds where they are, and re-queues them once Redis lost them', async () => {
    const ctx = await agentWithTools(stack.api, [
      httpTool({
        execution_mode: 'background',
        retry_window: '5m',
        attempt_timeout_s: 30,
        handler_url: handler.url('/late'),
      }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    // The first request holds the app's one slot for a while; the others wait their turn in the queue.
    handler.on('/late', () => ({ status: 200, delayMs: handler.at('/late').length === 1 ? FIRST_ANSWER_DELAY_MS : 0 }));
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const body = { tool: agentFacingName(ctx.app), dialog_id: 'd', arguments: { customer_id: `c${i}` } };
      const response = await stack.api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body });
      expect(response.status, response.text).toBe(202);
      ids.push(response.body.call_id as string);
    }
    await eventually(() => expect(handler.at('/late')).toHaveLength(1));
    // The four waiting calls are an hour overdue by their own clock: late, but their jobs are all in Redis.
    await stack.api.sql(
      "UPDATE tool_calls SET next_attempt_at = now() - interval '1 hour' WHERE status = 'queued' AND id = ANY($1)",
      [ids],
    );
    const reconcile = stack.worker!.get(ReconcileDeliveries);
    expect(await reconcile.execute()).toEqual({ requeued: 0, ended: 0, next: null });

    // Redis loses every job: the same four calls are re-queued, and each is still delivered once.
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
    expect(await reconcile.execute()).toEqual({ requeued: 4, ended: 0, next: null });
    await eventually(
      async () => {
        const rows = await stack.api.sql('SELECT status FROM tool_calls WHERE id = ANY($1)', [ids]);
        expect(rows.map((row) => row.status)).toEqual(ids.map(() => 'succeeded'));
      },
      { timeoutMs: FIRST_ANSWER_DELAY_MS + 10_000, intervalMs: 100 },
    );
    const events = handler.at('/late').map((request) => request.event.event_id);
    expect(events).toHaveLength(5);
    expect(new Set(events).size).toBe(5);
  }, 60_000);
});
