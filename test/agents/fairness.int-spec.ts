// One app's hanging handler must not delay another app's calls (per-app cap of deliveries in flight).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ WORKER_CONCURRENCY: '20', APP_DELIVERY_CONCURRENCY: '5' });
});
afterAll(async () => {
  await handler.stop();
  await stack.close();
});

describe('fairness between apps', () => {
  it("delivers app B's 200 calls at their normal pace while app A's handler hangs", async () => {
    const a = await agentWithTools(stack.api, [
      httpTool({
        handler_url: handler.url('/a/hang'),
        execution_mode: 'background',
        retry_window: '5m',
        attempt_timeout_s: 10,
      }),
    ]);
    const b = await agentWithTools(stack.api, [
      httpTool({ handler_url: handler.url('/b/fast'), execution_mode: 'background', retry_window: '5m' }),
    ]);
    handler.secrets = [a.app.webhook_secret, b.app.webhook_secret];
    let openA = 0;
    let maxOpenA = 0;
    handler.on('/a/hang', () => {
      openA += 1;
      maxOpenA = Math.max(maxOpenA, openA);
      return { status: 200, hang: true };
    });
    const call = (ctx: typeof a) =>
      stack.api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: {
          tool: agentFacingName(ctx.app),
          dialog_id: 'd',
          arguments: { customer_id: 'c' },
        },
      });

    for (let i = 0; i < 40; i += 1) expect((await call(a)).status).toBe(202);
    await eventually(() => expect(handler.at('/a/hang').length).toBeGreaterThanOrEqual(5), { intervalMs: 20 });

    const sentAt = new Map<string, number>();
    for (let i = 0; i < 200; i += 1) {
      const accepted = await call(b);
      sentAt.set(accepted.body.call_id, Date.now());
    }
    await eventually(() => expect(handler.at('/b/fast')).toHaveLength(200), { timeoutMs: 20_000, intervalMs: 20 });

    const calls = await stack.api.sql('SELECT id, event_id FROM tool_calls WHERE app_id = $1', [b.app.id]);
    const callOfEvent = new Map(calls.map((c: { id: string; event_id: string }) => [c.event_id, c.id]));
    const latencies = handler
      .at('/b/fast')
      .map((r) => r.receivedAt - (sentAt.get(callOfEvent.get(r.event.event_id) as string) as number))
      .sort((x, y) => x - y);
    const p99 = latencies[Math.floor(latencies.length * 0.99) - 1];
    // Without the cap, B's calls would wait behind A's 10 s timeouts.
    expect(p99).toBeLessThan(2000);
    // The cap holds per process: A's first attempts in the API and its deliveries in the worker, 5 each.
    expect(maxOpenA).toBeLessThanOrEqual(10);
  }, 40_000);
});
