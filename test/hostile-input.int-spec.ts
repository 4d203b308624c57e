// Bad bytes in requests (NUL, unpaired surrogates, Infinity, unsafe integers, deep nesting, invalid
// UTF-8) get a 4xx that names the field, on REST and on the agent MCP endpoint; nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { connectAgentMcp } from './support/mcp-clients.js';
import { type TestApi, startTestApi } from './support/test-api.js';
import { developerToken, signToken } from './support/tokens.js';
import { WebhookHandler } from './support/webhook-handler.js';

let api: TestApi;
let handler: WebhookHandler;
let ctx: Awaited<ReturnType<typeof agentWithTools>>;
let tool: string;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  api = await startTestApi();
  ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url('/hostile') })]);
  handler.secrets = [ctx.app.webhook_secret];
  tool = agentFacingName(ctx.app);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await handler?.stop();
});

const callCount = async () => Number((await api.sql('SELECT count(*)::int AS n FROM tool_calls'))[0].n);
const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

function expectProblem(response: { status: number; headers: Headers; body: any }, status: number) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body.detail).toEqual(expect.any(String));
}

describe('a REST request body', () => {
  it.each([
    [
      'NUL in dialog_id',
      () => JSON.stringify({ tool, dialog_id: 'd\u0000', arguments: { customer_id: 'c1' } }),
      'dialog_id',
      /NUL \(U\+0000\)/,
    ],
    [
      'NUL in an argument',
      () => JSON.stringify({ tool, dialog_id: 'd', arguments: { customer_id: 'c\u00001' } }),
      'arguments.customer_id',
      /NUL/,
    ],
    [
      'NUL in an argument name',
      () => JSON.stringify({ tool, dialog_id: 'd', arguments: { 'x\u0000': 'c' } }),
      'arguments.x\\u0000',
      /field name.*NUL/,
    ],
    [
      'an unpaired surrogate',
      () => `{"tool":"${tool}","dialog_id":"d","arguments":{"customer_id":"\\ud800"}}`,
      'arguments.customer_id',
      /unpaired UTF-16 surrogate/,
    ],
    [
      '1e400 (Infinity)',
      () => `{"tool":"${tool}","dialog_id":"d","arguments":{"customer_id":"c","n":1e400}}`,
      'arguments.n',
      /Infinity/,
    ],
    [
      'an integer beyond 2^53',
      () => `{"tool":"${tool}","dialog_id":"d","arguments":{"customer_id":"c","n":9007199254740993}}`,
      'arguments.n',
      /2\^53.*as a string/,
    ],
    [
      'nesting deeper than 64 levels',
      () => `{"tool":"${tool}","dialog_id":"d","arguments":${deep(10_000)}}`,
      /^arguments(\.a){63}$/,
      /deeper than 64 levels/,
    ],
  ])('is a 422 naming the field for %s, and no call is made', async (_, body, path, message) => {
    const before = await callCount();
    const response = await api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, rawBody: body() });
    expectProblem(response, 422);
    expect(response.body.errors).toEqual([
      { path: typeof path === 'string' ? path : expect.stringMatching(path), message: expect.stringMatching(message) },
    ]);
    expect(await callCount()).toBe(before);
    expect(handler.received).toHaveLength(0);
  });

  it('holding NUL in display_name is a 422 on a developer route too', async () => {
    const dev = await developerToken('dev_hostile');
    const response = await api.request('POST', '/v1/apps', {
      token: dev,
      body: { name: 'hostile-app', display_name: 'Shop\u0000' },
    });
    expectProblem(response, 422);
    expect(response.body.errors).toEqual([{ path: 'display_name', message: expect.stringMatching(/NUL/) }]);
  });

  it('that is not valid UTF-8 is a 400 that says so', async () => {
    const bytes = Buffer.concat([
      Buffer.from(`{"tool":"${tool}","dialog_id":"`),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}'),
    ]);
    const response = await fetch(`${api.baseUrl}${ctx.base}/tool-calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.agent}`, 'content-type': 'application/json' },
      body: bytes,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/not valid UTF-8/);
  });
});

describe('a path or query', () => {
  it('with NUL in :call_id or :app_id is a 404, not a 500', async () => {
    expectProblem(await api.request('GET', `${ctx.base}/tool-calls/%00`, { token: ctx.agent }), 404);
    expectProblem(await api.request('POST', `${ctx.base}/tool-calls/call_%00/cancel`, { token: ctx.agent }), 404);
    expectProblem(await api.request('GET', `/v1/apps/${ctx.app.id}%00`, { token: ctx.dev }), 404);
  });

  it('too long for Node to parse (over 16 KiB) is a 431 problem, not a bare status line', async () => {
    const response = await api.request('GET', `/v1/apps/${'x'.repeat(20_000)}`, { token: ctx.dev });
    expectProblem(response, 431);
    expect(response.body.detail).toMatch(/larger than 16 KiB/);
  });

  it('with a garbage ?token= beside a valid operator header opens the queue dashboard, and sets no cookie', async () => {
    const operator = await signToken({ role: 'operator' });
    const response = await api.request('GET', '/admin/queues/api/queues?token=%d2%83%df%72', { token: operator });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('with NUL in a filter is a 422 naming it; a garbage cursor is a 422', async () => {
    const nul = await api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls?tool_name=a%00b`, { token: ctx.dev });
    expectProblem(nul, 422);
    expect(nul.body.errors).toEqual([{ path: 'tool_name', message: expect.stringMatching(/NUL/) }]);
    for (const cursor of ['%00', 'garbage', '%ED%A0%80', 'x'.repeat(3000)]) {
      expectProblem(
        await api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls?cursor=${cursor}`, { token: ctx.dev }),
        422,
      );
    }
  });
});

describe('the agent MCP endpoint', () => {
  const connect = () => connectAgentMcp(api, 'v2', ctx.agentId, ctx.agent);

  it('answers tools/call arguments holding NUL with a JSON-RPC error naming the field, and makes no call', async () => {
    const before = await callCount();
    const client = await connect();
    try {
      const refused = await client.callTool({ name: tool, arguments: { customer_id: 'c\u00001' } }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/params\.arguments\.customer_id must not contain NUL/),
      });
      const ok = await client.callTool({ name: tool, arguments: { customer_id: 'c1' } });
      expect(ok.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(await callCount()).toBe(before + 1);
  });

  it('answers nesting deeper than 64 levels and NUL in _meta with a JSON-RPC error, never an internal error', async () => {
    const post = (body: string) =>
      api.request('POST', `${ctx.base}/mcp`, {
        token: ctx.agent,
        rawBody: body,
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      });
    const tooDeep = await post(
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${tool}","arguments":${deep(5000)}}}`,
    );
    expect(tooDeep.status).toBe(200);
    expect(tooDeep.body).toMatchObject({
      id: 7,
      error: { code: -32602, message: expect.stringMatching(/deeper than 64 levels/) },
    });
    const meta = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'm',
        method: 'tools/call',
        params: { name: tool, arguments: { customer_id: 'c' }, _meta: { 'toolgate/dialog_id': 'd\u0000' } },
      }),
    );
    expect(meta.body).toMatchObject({
      id: 'm',
      error: {
        code: -32602,
        message: expect.stringMatching(/params\._meta\.toolgate\/dialog_id must not contain NUL/),
      },
    });
  });
});
