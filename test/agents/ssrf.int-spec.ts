// With the guard on (ALLOW_PRIVATE_NETWORK=false), nothing is sent to a non-public address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestDnsServer, startDnsServer } from '../support/dns-server.js';
import { developerToken } from '../support/tokens.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;
let dns: TestDnsServer;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  dns = await startDnsServer({
    'intranet.toolgate.test': ['10.20.30.40'],
    // a public address first: the guard checks every address, not the first one only
    'mixed.toolgate.test': ['93.184.216.34', '127.0.0.1'],
    'v6.toolgate.test': ['fd00::1234'],
  });
  stack = await startTestStack({ ALLOW_PRIVATE_NETWORK: 'false', RETRY_TIME_SCALE: '0.01', DNS_SERVERS: dns.address });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
  await dns.stop();
});

async function instantCall(url: string) {
  const ctx = await agentWithTools(stack.api, [httpTool({ handler_url: url })]);
  handler.secrets = [ctx.app.webhook_secret];
  const response = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
    token: ctx.agent,
    body: { tool: agentFacingName(ctx.app), dialog_id: 'd', arguments: { customer_id: 'c' } },
  });
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ status: 'failed', error: { kind: 'blocked_address' } });
  expect(response.body.error.message).toMatch(/ALLOW_PRIVATE_NETWORK/);
  expect(handler.received).toHaveLength(0);
  return response.body.error.message as string;
}

describe('the SSRF guard', () => {
  it('refuses an IP literal, naming it: the call fails blocked_address and the handler receives nothing', async () => {
    const port = Number(new URL(handler.baseUrl).port);
    expect(await instantCall(`http://127.0.0.1:${port}/hook`)).toMatch(
      /"127\.0\.0\.1" is not public \(loopback address 127\.0\.0\.1\)/,
    );
  });

  it.each([
    ['localhost (loopback, without DNS)', 'localhost', /127\.0\.0\.1|::1|loopback/],
    ['a name the DNS answers with a private address', 'intranet.toolgate.test', /10\.20\.30\.40|private/],
    ['a name with a public and a loopback address', 'mixed.toolgate.test', /127\.0\.0\.1|93\.184|loopback/],
    ['a name with a unique local IPv6 address', 'v6.toolgate.test', /fd00|unique local/],
  ])('refuses %s without naming the address it resolves to', async (_, host, address) => {
    const port = Number(new URL(handler.baseUrl).port);
    const message = await instantCall(`http://${host}:${port}/hook`);
    expect(message).toContain(`host "${host}" resolves to a non-public address`);
    expect(message).not.toMatch(address);
  });

  it('refuses an MCP server whose name resolves to a private address, without naming it', async () => {
    const dev = await developerToken('dev_ssrf');
    const app = (
      await stack.api.request('POST', '/v1/apps', { token: dev, body: { name: 'ssrf-mcp', display_name: 'Intranet' } })
    ).body;
    const mcp = { url: 'http://intranet.toolgate.test:8080/mcp', auth_header_value_action: 'clear' };
    expect(
      (
        await stack.api.request('PUT', `/v1/apps/${app.id}/agent-tools`, {
          token: dev,
          body: { enabled: true, mode: 'mcp', mcp },
        })
      ).status,
    ).toBe(200);
    const refresh = await stack.api.request('POST', `/v1/apps/${app.id}/mcp/refresh`, { token: dev });
    expect(refresh.status).toBe(503);
    expect(refresh.body.detail).toContain('host "intranet.toolgate.test" resolves to a non-public address');
    expect(refresh.body.detail).not.toMatch(/10\.20\.30\.40|private address/);
  });

  it('refuses queued calls the same way, on every attempt, and records why', async () => {
    const ctx = await agentWithTools(stack.api, [
      httpTool({ handler_url: 'http://10.255.255.1/hook', execution_mode: 'wait', retry_window: '5m' }),
    ]);
    const accepted = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: {
        tool: agentFacingName(ctx.app),
        dialog_id: 'd',
        arguments: { customer_id: 'c' },
      },
    });
    const finished = await stack.api.request('GET', `${ctx.base}/tool-calls/${accepted.body.call_id}?wait=20`, {
      token: ctx.agent,
    });
    expect(finished.body).toMatchObject({ status: 'failed', error: { kind: 'blocked_address' } });
    const detail = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${accepted.body.call_id}`, {
      token: ctx.dev,
    });
    expect(detail.body.attempts).toHaveLength(5);
    expect(detail.body.attempts[0]).toMatchObject({
      outcome: 'blocked_address',
      error: expect.stringMatching(/private address 10\.255\.255\.1/),
    });
  });
});
