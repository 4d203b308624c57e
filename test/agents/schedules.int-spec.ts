// Each retry window's full schedule, every attempt failing, under a small RETRY_TIME_SCALE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryOffsetsMs } from '../../libs/domain/src/index.js';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let handler: WebhookHandler;
beforeAll(async () => {
  handler = await new WebhookHandler().start();
});
afterAll(() => handler.stop());

describe.each([
  ['3h', 0.001, 8],
  ['1d', 0.0001, 12],
] as const)('the %s window at scale %s', (window, scale, attempts) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ RETRY_TIME_SCALE: String(scale), RECONCILE_INTERVAL_MS: '500' });
  });
  afterAll(() => stack.close());

  it(`makes all ${attempts} attempts at their scaled offsets from the first, then fails`, async () => {
    const path = `/hook/${window}`;
    handler.on(path, () => ({ status: 500 }));
    const ctx = await agentWithTools(stack.api, [
      httpTool({ handler_url: handler.url(path), execution_mode: 'background', retry_window: window }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    const accepted = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: {
        tool: agentFacingName(ctx.app),
        dialog_id: 'd',
        arguments: { customer_id: 'c' },
      },
    });
    expect(accepted.status).toBe(202);
    const finished = await stack.api.request('GET', `${ctx.base}/tool-calls/${accepted.body.call_id}?wait=30`, {
      token: ctx.agent,
    });
    expect(finished.body.status).toBe('failed');

    const times = handler.at(path).map((r) => r.receivedAt);
    const expected = retryOffsetsMs(window).map((offset) => offset * scale);
    expect(times).toHaveLength(attempts);
    // Offsets run from the moment attempt 1 went out (its recorded start), not from when it happened to arrive.
    const detail = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${accepted.body.call_id}`, {
      token: ctx.dev,
    });
    const firstSentAt = Date.parse(detail.body.attempts[0].started_at);
    times.forEach((t, i) => {
      const offset = t - firstSentAt;
      expect(offset, `attempt ${i + 1} at ${offset} ms, due at ${expected[i]} ms`).toBeGreaterThanOrEqual(
        expected[i] - 2,
      );
      expect(offset, `attempt ${i + 1} at ${offset} ms, due at ${expected[i]} ms`).toBeLessThanOrEqual(
        expected[i] + 250,
      );
    });
    expect(new Set(handler.at(path).map((r) => r.rawBody.toString('base64'))).size).toBe(1);
    // A fresh timestamp header on every attempt (whole seconds, so equal within one second).
    for (const r of handler.at(path))
      expect(Math.abs(Number(r.headers['x-webhook-timestamp']) * 1000 - r.receivedAt)).toBeLessThan(1500);
  }, 40_000);
});
