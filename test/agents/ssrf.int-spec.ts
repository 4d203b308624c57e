// With the guard on (ALLOW_PRIVATE_NETWORK=false), nothing is sent to a non-public address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ ALLOW_PRIVATE_NETWORK: 'false', RETRY_TIME_SCALE: '0.01' });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

describe('the SSRF guard', () => {
  it.each([
    ['an IP literal', (port: number) => `http://127.0.0.1:${port}/hook`],
    ['a name that resolves to loopback', (port: number) => `http://localhost:${port}/hook`],
  ])('refuses %s: the call fails blocked_address and the handler receives nothing', async (_, url) => {
    const port = Number(new URL(handler.baseUrl).port);
    const ctx = await agentWithTools(stack.api, [httpTool({ handler_url: url(port) })]);
    handler.secrets = [ctx.app.webhook_secret];
    const response = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${ctx.app.name.replace(/-/g, '_')}_find_customer`, dialog_id: 'd', arguments: { customer_id: 'c' } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', error: { kind: 'blocked_address' } });
    expect(response.body.error.message).toMatch(/loopback address 127\.0\.0\.1/);
    expect(response.body.error.message).toMatch(/ALLOW_PRIVATE_NETWORK/);
    expect(handler.received).toHaveLength(0);
  });

  it('refuses queued calls the same way, on every attempt, and records why', async () => {
    const ctx = await agentWithTools(stack.api, [httpTool({ handler_url: 'http://10.255.255.1/hook', execution_mode: 'wait', retry_window: '5m' })]);
    const accepted = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${ctx.app.name.replace(/-/g, '_')}_find_customer`, dialog_id: 'd', arguments: { customer_id: 'c' } },
    });
    const finished = await stack.api.request('GET', `${ctx.base}/tool-calls/${accepted.body.call_id}?wait=20`, { token: ctx.agent });
    expect(finished.body).toMatchObject({ status: 'failed', error: { kind: 'blocked_address' } });
    const detail = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${accepted.body.call_id}`, { token: ctx.dev });
    expect(detail.body.attempts).toHaveLength(5);
    expect(detail.body.attempts[0]).toMatchObject({ outcome: 'blocked_address', error: expect.stringMatching(/private address 10\.255\.255\.1/) });
  });
});
