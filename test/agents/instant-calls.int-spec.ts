import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { agentToken } from '../support/tokens.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({}, { worker: false });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

async function setup(toolOverrides: Record<string, unknown> = {}, options: Parameters<typeof agentWithTools>[2] = {}) {
  const path = `/hook/${Math.random().toString(36).slice(2)}`;
  const ctx = await agentWithTools(
    stack.api,
    [httpTool({ handler_url: handler.url(path), ...toolOverrides })],
    options,
  );
  handler.secrets = [ctx.app.webhook_secret];
  const call = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    stack.api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: agentFacingName(ctx.app), dialog_id: 'd1', ...body },
      headers,
    });
  return { ...ctx, path, call, toolName: agentFacingName(ctx.app) };
}

describe('listing an agent tools', () => {
  it('gives names, descriptions, JSON Schema parameters and modes', async () => {
    const ctx = await setup({ agent_description: 'Look a customer up.' }, { displayName: 'My Shop', instances: {} });
    const response = await stack.api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        {
          name: ctx.toolName,
          description: '[App "My Shop"] Look a customer up.',
          parameters: {
            type: 'object',
            properties: {
              customer_id: { type: 'string', description: 'The customer number' },
              with_orders: { type: 'boolean', description: 'Include orders' },
            },
            required: ['customer_id'],
            additionalProperties: false,
          },
          tool_instance_id: ctx.instances[0].id,
          execution_mode: 'instant',
        },
      ],
    });
    expect(response.body.data[0].name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it("answers 404 for another agent's path and 401 without a token", async () => {
    const ctx = await setup();
    const other = await agentToken(ctx.projectId, 'someone_else');
    expect((await stack.api.request('GET', `${ctx.base}/tools`, { token: other })).status).toBe(404);
    expect((await stack.api.request('GET', `${ctx.base}/tools`)).status).toBe(401);
    const otherProject = await agentToken('another_project', ctx.agentId);
    const listed = await stack.api.request('GET', `${ctx.base}/tools`, { token: otherProject });
    expect(listed.body.data).toEqual([]);
  });
});

describe('instant calls', () => {
  it('sends one signed webhook and answers 200 with the handler result', async () => {
    const ctx = await setup();
    const response = await ctx.call({ arguments: { customer_id: 'c-42', with_orders: true }, lead_id: 'lead-1' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      call_id: expect.stringMatching(/^call_/),
      status: 'succeeded',
      result: { echo: { customer_id: 'c-42', with_orders: true } },
      result_text: '{"echo":{"customer_id":"c-42","with_orders":true}}',
    });
    const [webhook] = handler.at(ctx.path);
    expect(handler.at(ctx.path)).toHaveLength(1);
    expect(webhook.headers['content-type']).toBe('application/json');
    expect(webhook.headers['user-agent']).toBe('toolgate/0.1.0');
    expect(webhook.headers['x-webhook-event-id']).toBe(webhook.event.event_id);
    expect(webhook.headers['webhook-id']).toBe(webhook.event.event_id);
    expect(webhook.headers['x-webhook-signature']).toBe(webhook.headers['webhook-signature']);
    expect(Math.abs(Number(webhook.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(Object.keys(JSON.parse(webhook.rawBody.toString()))).toEqual([
      'event_id',
      'event_type',
      'timestamp',
      'app_id',
      'installation_id',
      'project_id',
      'agent_id',
      'dialog_id',
      'lead_id',
      'tool_name',
      'tool_instance_id',
      'arguments',
      'configuration',
      'private_data',
    ]);
    expect(webhook.event).toMatchObject({
      event_type: 'tool_call',
      app_id: ctx.app.id,
      installation_id: ctx.installationId,
      project_id: ctx.projectId,
      agent_id: ctx.agentId,
      dialog_id: 'd1',
      lead_id: 'lead-1',
      tool_name: 'find_customer',
      tool_instance_id: ctx.instances[0].id,
      configuration: {},
      private_data: {},
    });
    expect(webhook.event.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('hands a text body over as text', async () => {
    const ctx = await setup();
    handler.on(ctx.path, () => ({ status: 200, body: 'plain answer', headers: { 'content-type': 'text/plain' } }));
    const response = await ctx.call({ arguments: { customer_id: 'x' } });
    expect(response.body).toMatchObject({ status: 'succeeded', result: 'plain answer', result_text: 'plain answer' });
  });

  it('never retries: a failed attempt gives 200 failed with the reason, and one attempt recorded', async () => {
    const ctx = await setup();
    handler.on(ctx.path, () => ({ status: 503, body: 'down', headers: { 'retry-after': '1' } }));
    const response = await ctx.call({ arguments: { customer_id: 'x' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      call_id: expect.any(String),
      status: 'failed',
      error: { kind: 'http_status', message: 'answered 503: down', http_status: 503 },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(handler.at(ctx.path)).toHaveLength(1);
    const detail = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${response.body.call_id}`, {
      token: ctx.dev,
    });
    expect(detail.body.attempts).toEqual([
      {
        round: 1,
        n: 1,
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
        outcome: 'http_status',
        http_status: 503,
        error: 'answered 503',
        response_excerpt: 'down',
      },
    ]);
  });

  it('hands the model what a failing handler said, and an empty 2xx answer as OK', async () => {
    const ctx = await setup();
    const replies = [
      { status: 404, body: '{"error":"customer 42 not found"}', headers: { 'content-type': 'application/json' } },
      {
        status: 422,
        body: '{"message":"customer_id must look like c-123","code":"bad_id"}',
        headers: { 'content-type': 'application/json' },
      },
      { status: 500, body: `database is down\u0000${'x'.repeat(900)}`, headers: { 'content-type': 'text/plain' } },
      { status: 500, body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]), headers: { 'content-type': 'image/png' } },
      { status: 204 },
    ];
    handler.on(ctx.path, ({ attempt }) => replies.shift() ?? { status: 200, body: String(attempt) });
    const bodies = [];
    for (let i = 0; i < 5; i += 1) bodies.push((await ctx.call({ arguments: { customer_id: String(i) } })).body);
    expect(bodies[0]).toMatchObject({
      status: 'failed',
      error: { kind: 'http_status', http_status: 404, message: 'answered 404: customer 42 not found' },
    });
    expect(bodies[1].error.message).toBe('answered 422: customer_id must look like c-123');
    // a text body: its first 500 characters, the NUL stored as U+FFFD
    expect(bodies[2].error.message).toBe(`answered 500: database is down\uFFFD${'x'.repeat(483)}…`);
    expect(bodies[3].error.message).toBe('answered 500');
    expect(bodies[4]).toEqual({ call_id: expect.any(String), status: 'succeeded', result: null, result_text: 'OK' });
    for (const answered of bodies.slice(0, 4)) {
      const read = await stack.api.request('GET', `${ctx.base}/tool-calls/${answered.call_id}`, { token: ctx.agent });
      expect(read.body.error).toEqual(answered.error);
    }
  });

  it('does not follow a redirect', async () => {
    const ctx = await setup();
    const target = `/hook/target-${Math.random()}`;
    handler.on(ctx.path, () => ({ status: 302, headers: { location: handler.url(target) } }));
    const response = await ctx.call({ arguments: { customer_id: 'x' } });
    expect(response.body).toMatchObject({ status: 'failed', error: { kind: 'redirect', http_status: 302 } });
    expect(handler.at(target)).toHaveLength(0);
  });

  it('records a timeout when the handler does not answer within attempt_timeout_s', async () => {
    const ctx = await setup({ attempt_timeout_s: 10 });
    handler.on(ctx.path, () => ({ status: 200, hang: true }));
    const started = Date.now();
    const response = await ctx.call({ arguments: { customer_id: 'x' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    expect(response.body).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
  }, 20_000);

  it('refuses a response over 1 MiB', async () => {
    const ctx = await setup();
    handler.on(ctx.path, () => ({ status: 200, body: Buffer.alloc(1024 * 1024 + 1, 'a') }));
    const response = await ctx.call({ arguments: { customer_id: 'x' } });
    expect(response.body).toMatchObject({ status: 'failed', error: { kind: 'response_too_large' } });
  });

  it('reports an unreachable handler as network', async () => {
    const ctx = await setup({ handler_url: 'http://127.0.0.1:1/nothing' });
    const response = await ctx.call({ arguments: { customer_id: 'x' } });
    expect(response.body).toMatchObject({ status: 'failed', error: { kind: 'network' } });
  });
});

describe('argument validation', () => {
  it.each([
    [{ customer_id: 5 }, ['arguments.customer_id']],
    [{ with_orders: true }, ['arguments.customer_id']],
    [{ customer_id: 'x', extra: 1 }, ['arguments.extra']],
    [{ customer_id: 'x', with_orders: 'yes' }, ['arguments.with_orders']],
    [{ nope: 1, with_orders: 1 }, ['arguments.nope', 'arguments.customer_id', 'arguments.with_orders']],
    [[1, 2], ['arguments']],
  ])('refuses %j with 422 and sends nothing', async (args, paths) => {
    const ctx = await setup();
    const response = await ctx.call({ arguments: args });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    expect(handler.at(ctx.path)).toHaveLength(0);
  });

  it('treats {}, null, "" and missing arguments alike', async () => {
    const ctx = await setup({ parameters: [{ name: 'q', type: 'string', description: 'Query', required: false }] });
    for (const body of [{ arguments: {} }, { arguments: null }, { arguments: '' }, {}]) {
      expect((await ctx.call(body)).status).toBe(200);
    }
    expect(handler.at(ctx.path).map((r) => r.event.arguments)).toEqual([{}, {}, {}, {}]);
    const required = await setup();
    for (const body of [{ arguments: {} }, { arguments: null }, { arguments: '' }, {}]) {
      const response = await required.call(body);
      expect(response.status).toBe(422);
      expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(['arguments.customer_id']);
    }
  });

  it('enforces the instance allowed values, and refuses an unknown tool', async () => {
    const ctx = await setup(
      { configurable: true },
      {
        instances: {
          find_customer: {
            configured_parameters: [
              {
                name: 'customer_id',
                type: 'string',
                description: 'Ours',
                required: true,
                allowed_values: ['c1', 'c2'],
              },
            ],
          },
        },
      },
    );
    const listed = await stack.api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
    expect(listed.body.data[0].parameters.properties.customer_id).toEqual({
      type: 'string',
      description: 'Ours',
      enum: ['c1', 'c2'],
    });
    expect((await ctx.call({ arguments: { customer_id: 'c3' } })).status).toBe(422);
    expect((await ctx.call({ arguments: { customer_id: 'c2' } })).status).toBe(200);
    const unknown = await ctx.call({ tool: 'no_such_tool', arguments: {} });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].path).toBe('tool');
  });
});
