// What operators see: Prometheus metrics of the API and the worker, with labels of bounded cardinality.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsServer } from '../apps/worker/src/metrics-server.js';
import { agentFacingPrefix, agentWithTools, httpTool } from './support/fixtures.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { WebhookHandler } from './support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  // Queued calls all through the worker (no first attempt in the API), as the worker's metrics below expect.
  stack = await startTestStack({ RETRY_TIME_SCALE: '0.01', API_DELIVERY_CONCURRENCY: '0' });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('metrics', () => {
  it('count calls and attempts in the API (instant) and the worker (queued), with queue depth, and no ids in labels', async () => {
    const ctx = await agentWithTools(stack.api, [
      httpTool({ handler_url: handler.url('/ok') }),
      httpTool({ name: 'later', handler_url: handler.url('/flaky'), execution_mode: 'wait', retry_window: '5m' }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    handler.on('/flaky', ({ attempt }) => (attempt === 1 ? { status: 503 } : { status: 200, body: 'ok' }));
    const prefix = agentFacingPrefix(ctx.app);
    await stack.api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${prefix}find_customer`, dialog_id: 'd', arguments: { customer_id: 'c' } },
    });
    const queued = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${prefix}later`, dialog_id: 'd', arguments: { customer_id: 'c' } },
    });
    await stack.api.request('GET', `${ctx.base}/tool-calls/${queued.body.call_id}?wait=10`, { token: ctx.agent });

    const api = await stack.api.request('GET', '/metrics');
    expect(api.status).toBe(200);
    expect(api.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(sample(api.text, 'toolgate_tool_calls_accepted_total', { mode: 'instant', kind: 'http' })).toBe(1);
    expect(sample(api.text, 'toolgate_tool_calls_accepted_total', { mode: 'wait', kind: 'http' })).toBe(1);
    expect(sample(api.text, 'toolgate_tool_calls_finished_total', { mode: 'instant', status: 'succeeded' })).toBe(1);
    expect(sample(api.text, 'toolgate_delivery_attempts_total', { delivery: 'tool_call', outcome: 'success' })).toBe(1);
    expect(sample(api.text, 'toolgate_queued_call_first_attempts_total', { by: 'queue' })).toBe(1);
    expect(sample(api.text, 'toolgate_queued_call_first_attempts_total', { by: 'api' })).toBe(0);
    expect(api.text).toMatch(/^toolgate_queue_jobs\{state="delayed"\} \d+$/m);
    expect(api.text).toMatch(
      /toolgate_delivery_attempt_duration_seconds_bucket\{le="0.1",delivery="tool_call",outcome="success"\}/,
    );

    const port = stack.worker!.get(MetricsServer).port;
    const worker = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(sample(worker, 'toolgate_delivery_attempts_total', { delivery: 'tool_call', outcome: 'http_status' })).toBe(
      1,
    );
    expect(sample(worker, 'toolgate_delivery_attempts_total', { delivery: 'tool_call', outcome: 'success' })).toBe(1);
    expect(sample(worker, 'toolgate_tool_calls_finished_total', { mode: 'wait', status: 'succeeded' })).toBe(1);
    expect(worker).toMatch(/^toolgate_reconciler_requeued_total\{delivery="tool_call"\} \d+$/m);
    expect(worker).toMatch(/^toolgate_delivery_attempt_lateness_seconds_count\{delivery="tool_call"\} 2$/m); // the wait call's two attempts

    for (const text of [api.text, worker]) {
      expect(text).not.toMatch(/(app|call|ti|inst)_[0-9a-f]{32}|whsec_|127\.0\.0\.1/);
    }
  });
});
