// The reconciler cannot be starved: a backlog of one app's overdue calls does not hide another
// app's lost call. A Redis of this file's own, so that FLUSHALL touches nothing else.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalRedis } from '../scripts/local-services.js';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { WebhookHandler } from './support/webhook-handler.js';

const RECONCILE_INTERVAL_MS = 2000;
let redis: LocalService;
let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  redis = await startLocalRedis();
  handler = await new WebhookHandler().start();
  // Every call goes through the queue (no first attempt in the API): the reconciler's own path.
  const env = {
    REDIS_URL: redis.url,
    RECONCILE_INTERVAL_MS: String(RECONCILE_INTERVAL_MS),
    API_DELIVERY_CONCURRENCY: '0',
  };
  stack = await startTestStack(env, { worker: false });
}, 60_000);
afterAll(async () => {
  await handler?.stop(); // first: the hanging attempts end, so the worker stops at once
  await stack?.close();
  await redis?.stop();
});

describe('the reconciler', () => {
  it('finds one lost call of an app behind 600 overdue calls of a hanging app within two runs', async () => {
    const tool = (path: string) =>
      httpTool({
        execution_mode: 'background',
        retry_window: '5m',
        attempt_timeout_s: 30,
        handler_url: handler.url(path),
      });
    const hanging = await agentWithTools(stack.api, [tool('/backlog/hanging')]);
    const other = await agentWithTools(stack.api, [tool('/backlog/other')]);
    handler.secrets = [hanging.app.webhook_secret, other.app.webhook_secret];
    handler.on('/backlog/hanging', () => ({ status: 200, hang: true }));
    const call = async (ctx: typeof hanging) => {
      const body = {
        tool: agentFacingName(ctx.app),
        dialog_id: 'd',
        arguments: { customer_id: 'c' },
      };
      const response = await stack.api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body });
      expect(response.status, response.text).toBe(202);
      return response.body.call_id as string;
    };

    // 600 overdue calls of the hanging app, copies of a real one, all older than the other app's call.
    const template = await call(hanging);
    await stack.api.sql(
      `INSERT INTO tool_calls (id, event_id, app_id, installation_id, project_id, agent_id, tool_instance_id,
         tool_kind, tool_name, agent_tool_name, dialog_id, execution_mode, retry_window, attempt_timeout_s,
         handler_url, arguments, status, round, next_attempt_n, next_attempt_at, accepted_at, updated_at)
       SELECT id || '_' || lpad(n::text, 4, '0'), gen_random_uuid()::text, app_id, installation_id, project_id,
         agent_id, tool_instance_id, tool_kind, tool_name, agent_tool_name, dialog_id, execution_mode, retry_window,
         attempt_timeout_s, handler_url, arguments, 'queued', 1, 1, now() - interval '1 hour', accepted_at, now()
       FROM tool_calls, generate_series(1, 600) AS n WHERE id = $1`,
      [template],
    );
    const lost = await call(other);
    // Redis loses every job (the calls stay queued in Postgres); the lost call is overdue by now.
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
    await stack.api.sql("UPDATE tool_calls SET next_attempt_at = now() - interval '10 seconds' WHERE id = $1", [lost]);
    const overdueSql =
      "SELECT count(*)::int AS overdue FROM tool_calls WHERE status = 'queued' AND next_attempt_at < now()";
    const [{ overdue }] = await stack.api.sql(overdueSql);
    expect(overdue).toBe(602);

    // The worker's first reconciler run starts with it; the second follows one interval later.
    await stack.startWorker();
    await eventually(() => expect(handler.at('/backlog/other').length).toBeGreaterThan(0), {
      timeoutMs: 2 * RECONCILE_INTERVAL_MS + 1000,
      intervalMs: 50,
    });
    const [{ event_id: eventId }] = await stack.api.sql('SELECT event_id FROM tool_calls WHERE id = $1', [lost]);
    expect(handler.at('/backlog/other').map((r) => r.event.event_id)).toEqual([eventId]);
  }, 60_000);
});
