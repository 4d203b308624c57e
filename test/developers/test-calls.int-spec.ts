// A developer tries its own tool (POST /v1/apps/{app_id}/tools/{tool_name}/test-calls): no project, installation or
// agent; one instant attempt through the real path (a signed webhook, or one tools/call to the app's MCP server),
// recorded in the developer's call history with `test: true`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnabledApp, httpTool, uniqueAppName } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { type ScriptedServer, listedTool, startScriptedServer } from '../support/mcp-servers.js';
import type { TestApi } from '../support/test-api.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { agentToken, developerToken, projectToken } from '../support/tokens.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let api: TestApi;
let handler: WebhookHandler;
let mcpServer: ScriptedServer;
let dev: string;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  mcpServer = await startScriptedServer({
    toolsList: () => ({
      result: {
        tools: [
          {
            name: 'greet',
            description: 'Greets someone',
            inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
          },
          listedTool('other'),
        ],
      },
    }),
    toolsCall: (name, args) => ({
      result: { content: [{ type: 'text', text: `hello ${String(args.who)} (${name})` }] },
    }),
  });
  stack = await startTestStack();
  api = stack.api;
  dev = await developerToken(`dev_test_calls_${process.pid}`);
});
afterAll(async () => {
  await mcpServer.stop();
  await handler.stop();
  await stack.close();
});

/** An app with one HTTP tool whose handler is the local one at a fresh path. */
async function appWithTool(overrides: Record<string, unknown> = {}) {
  const path = `/hook/${Math.random().toString(36).slice(2)}`;
  const { app } = await createEnabledApp(api, dev, {
    tools: [httpTool({ handler_url: handler.url(path), ...overrides })],
  });
  handler.secrets = [app.webhook_secret];
  const test = (body: Record<string, unknown>, toolName = 'find_customer') =>
    api.request('POST', `/v1/apps/${app.id}/tools/${toolName}/test-calls`, { token: dev, body });
  return { app, path, test };
}

describe('a test call of an HTTP tool', () => {
  it('is delivered signed, with the given configuration and private data, and answered as an instant call', async () => {
    const ctx = await appWithTool();
    const answer = await ctx.test({
      arguments: { customer_id: 'c1' },
      configuration: { region: 'eu' },
      private_data: { api_key: 'k-123' },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({
      call_id: expect.any(String),
      status: 'succeeded',
      result: { echo: { customer_id: 'c1' } },
      result_text: '{"echo":{"customer_id":"c1"}}',
    });
    const [received] = handler.at(ctx.path);
    expect(received.verifiedWith).toEqual([0]);
    expect(received.event).toMatchObject({
      event_type: 'tool_call',
      app_id: ctx.app.id,
      project_id: 'test',
      agent_id: 'test',
      dialog_id: 'test',
      installation_id: 'test',
      tool_instance_id: 'test',
      tool_name: 'find_customer',
      arguments: { customer_id: 'c1' },
      configuration: { region: 'eu' },
      private_data: { api_key: 'k-123' },
    });

    const detail = await api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${answer.body.call_id}`, { token: dev });
    expect(detail.body).toMatchObject({
      test: true,
      status: 'succeeded',
      agent_id: 'test',
      dialog_id: 'test',
      execution_mode: 'instant',
      attempts: [{ n: 1, outcome: 'success', http_status: 200 }],
    });
    const history = await api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls`, { token: dev });
    expect(history.body.data).toEqual([expect.objectContaining({ id: answer.body.call_id, test: true })]);
    expect(JSON.stringify(detail.body)).not.toContain('k-123');
  });

  it('is no project\'s call: a project or an agent named "test" never reads it', async () => {
    const ctx = await appWithTool();
    const answer = await ctx.test({ arguments: { customer_id: 'c2' } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const callId = answer.body.call_id;
    const project = await projectToken('test');
    const log = await api.request('GET', '/v1/projects/test/tool-calls', { token: project });
    expect(log.status).toBe(200);
    expect(log.body.data).toEqual([]);
    const one = await api.request('GET', `/v1/projects/test/tool-calls/${callId}`, { token: project });
    expect(one.status).toBe(404);
    const asAgent = await api.request('GET', `/v1/agents/test/tool-calls/${callId}`, {
      token: await agentToken('test', 'test'),
    });
    expect(asAgent.status).toBe(404);
  });

  it("tries a wait tool as one instant attempt, and says what the handler's error was", async () => {
    const ctx = await appWithTool({ execution_mode: 'wait', retry_window: '5m' });
    handler.on(ctx.path, () => ({
      status: 404,
      body: JSON.stringify({ error: 'no such customer' }),
      headers: { 'content-type': 'application/json' },
    }));
    const answer = await ctx.test({ arguments: { customer_id: 'nobody' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'failed',
      error: { kind: 'http_status', http_status: 404, message: expect.stringContaining('no such customer') },
    });
    const detail = await api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${answer.body.call_id}`, { token: dev });
    expect(detail.body).toMatchObject({
      test: true,
      status: 'failed',
      next_attempt_at: null,
      attempts: [{ n: 1, outcome: 'http_status', http_status: 404 }],
    });
    expect(handler.at(ctx.path)).toHaveLength(1);
  });

  it('can be replayed: the same event id and body, delivered by the worker', async () => {
    const ctx = await appWithTool();
    handler.on(ctx.path, ({ attempt }) => (attempt === 1 ? { status: 503 } : { status: 200, body: '"fixed"' }));
    const answer = await ctx.test({ arguments: { customer_id: 'c1' } });
    expect(answer.body).toMatchObject({ status: 'failed', error: { kind: 'http_status', http_status: 503 } });
    const url = `/v1/apps/${ctx.app.id}/tool-calls/${answer.body.call_id}`;
    const replay = await api.request('POST', `${url}/replay`, { token: dev });
    expect(replay.status, JSON.stringify(replay.body)).toBe(202);
    await eventually(async () => {
      const detail = await api.request('GET', url, { token: dev });
      expect(detail.body).toMatchObject({ status: 'succeeded', round: 2, result: 'fixed', test: true });
    });
    const [first, second] = handler.at(ctx.path);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.rawBody.equals(first.rawBody)).toBe(true);
  });

  it('ends failed with a timeout when the handler does not answer within attempt_timeout_s', async () => {
    const ctx = await appWithTool({ attempt_timeout_s: 10 });
    handler.on(ctx.path, () => ({ status: 200, hang: true }));
    const started = Date.now();
    const answer = await ctx.test({ arguments: { customer_id: 'slow' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    expect(answer.body).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
  }, 30_000);

  it('checks the arguments as a real call does, before anything is sent', async () => {
    const ctx = await appWithTool();
    const answer = await ctx.test({ arguments: { with_orders: 'yes', extra: 1 } });
    expect(answer.status).toBe(422);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    const paths = (answer.body.errors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['arguments.customer_id', 'arguments.extra', 'arguments.with_orders']);
    expect(handler.at(ctx.path)).toHaveLength(0);
  });

  it("answers 404 for an unknown tool and for another developer's app", async () => {
    const ctx = await appWithTool();
    expect((await ctx.test({}, 'no_such_tool')).status).toBe(404);
    const other = await developerToken(`dev_other_${process.pid}`);
    const foreign = await api.request('POST', `/v1/apps/${ctx.app.id}/tools/find_customer/test-calls`, {
      token: other,
      body: { arguments: { customer_id: 'c1' } },
    });
    expect(foreign.status).toBe(404);
    expect(handler.at(ctx.path)).toHaveLength(0);
  });
});

describe('a test call of an MCP tool', () => {
  it("makes one tools/call to the app's MCP server and records it as a test call", async () => {
    const created = await api.request('POST', '/v1/apps', {
      token: dev,
      body: { name: uniqueAppName('mcp'), display_name: 'Greeter' },
    });
    const app = created.body as { id: string };
    const put = await api.request('PUT', `/v1/apps/${app.id}/agent-tools`, {
      token: dev,
      body: { enabled: true, mode: 'mcp', mcp: { url: mcpServer.url, auth_header_value_action: 'clear' } },
    });
    expect(put.status).toBe(200);
    await eventually(async () => {
      const snapshot = await api.request('GET', `/v1/apps/${app.id}/mcp/tools`, { token: dev });
      expect(snapshot.body.data.map((t: { name: string }) => t.name)).toContain('greet');
    });
    const calls = () => mcpServer.methods.filter((m) => m === 'tools/call').length;
    const before = calls();

    const invalid = await api.request('POST', `/v1/apps/${app.id}/tools/greet/test-calls`, {
      token: dev,
      body: { arguments: { who: 7 } },
    });
    expect(invalid.status).toBe(422);
    expect(calls()).toBe(before);

    const answer = await api.request('POST', `/v1/apps/${app.id}/tools/greet/test-calls`, {
      token: dev,
      body: { arguments: { who: 'Ann' } },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ status: 'succeeded', result_text: 'hello Ann (greet)' });
    expect(calls()).toBe(before + 1);
    const detail = await api.request('GET', `/v1/apps/${app.id}/tool-calls/${answer.body.call_id}`, { token: dev });
    expect(detail.body).toMatchObject({ test: true, agent_id: 'test', attempts: [{ n: 1, outcome: 'success' }] });
  });
});
