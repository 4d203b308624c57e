// The HTTP layer (Nest on Fastify) answers as the API contract says, also where Fastify's own
// defaults differ: percent-encoding, long ids, trailing slashes, charsets, request ids, /docs assets.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWithTools, httpTool } from './support/fixtures.js';
import { type TestApi, startTestApi } from './support/test-api.js';
import { WebhookHandler } from './support/webhook-handler.js';

let api: TestApi;
let handler: WebhookHandler;
let ctx: Awaited<ReturnType<typeof agentWithTools>>;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  api = await startTestApi();
  ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url('/layer') })]);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await handler?.stop();
});

function expectProblem(response: { status: number; headers: Headers; body: any }, status: number) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body.detail).toEqual(expect.any(String));
}

describe('a URL', () => {
  it('with bad percent-encoding is a 400 problem that says so, with its request id', async () => {
    const response = await api.request('GET', `${ctx.base}/tool-calls/%FF%FE`, {
      token: ctx.agent,
      headers: { 'x-request-id': 'bad-url-1' },
    });
    expectProblem(response, 400);
    expect(response.body.detail).toBe('The URL is not correctly percent-encoded.');
    expect(response.headers.get('x-request-id')).toBe('bad-url-1');
  });

  it('with an id longer than 100 characters is a 404 for that id, not a 414', async () => {
    const response = await api.request('GET', `${ctx.base}/tool-calls/call_${'a'.repeat(300)}`, { token: ctx.agent });
    expectProblem(response, 404);
  });

  it('with a trailing slash reaches the same route', async () => {
    const response = await api.request('GET', `${ctx.base}/tools/`, { token: ctx.agent });
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(1);
  });

  it('of no route is a 404 problem that points to /docs, with a request id', async () => {
    const response = await api.request('GET', '/v1/nothing-here');
    expectProblem(response, 404);
    expect(response.body.detail).toBe('No such route: see /docs for the API.');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('a JSON body', () => {
  it('in a charset other than UTF-8 that is not a UTF encoding is a 415 problem', async () => {
    const response = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      rawBody: '{"tool":"x","dialog_id":"d","arguments":{}}',
      headers: { 'content-type': 'application/json; charset=latin1' },
    });
    expectProblem(response, 415);
  });

  it('sent gzip-encoded is read inflated; bytes that are not gzip are a 400, an unknown encoding a 415', async () => {
    const post = async (body: Uint8Array | string, encoding: string) => {
      const response = await fetch(`${api.baseUrl}${ctx.base}/tool-calls`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ctx.agent}`,
          'content-type': 'application/json',
          'content-encoding': encoding,
        },
        body,
      });
      return { status: response.status, headers: response.headers, body: (await response.json()) as any };
    };
    const inflated = await post(gzipSync('{"dialog_id":"d","arguments":{}}'), 'gzip');
    expectProblem(inflated, 422);
    expect(inflated.body.errors.map((e: { path: string }) => e.path)).toContain('tool');
    expectProblem(await post('{"dialog_id":"d"}', 'gzip'), 400);
    expectProblem(await post('{"dialog_id":"d"}', 'compress'), 415);
  });

  it('that is a bare JSON value, not an object or array, is a 400 problem', async () => {
    expectProblem(
      await api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, rawBody: '"just a string"' }),
      400,
    );
  });
});

describe('the agent MCP endpoint', () => {
  it('echoes X-Request-Id on the answer the MCP handler writes itself', async () => {
    const response = await api.request('POST', `${ctx.base}/mcp`, {
      token: ctx.agent,
      rawBody: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      headers: {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        'x-request-id': 'mcp-echo-1',
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('mcp-echo-1');
  });
});

describe('/docs', () => {
  it('serves the Swagger UI assets it links to', async () => {
    const ui = await api.request('GET', '/docs');
    const script = /src="\.?\/?(?:docs\/)?(swagger-ui-bundle\.js)"/.exec(ui.text)?.[1];
    expect(script).toBe('swagger-ui-bundle.js');
    const asset = await fetch(`${api.baseUrl}/docs/${script}`);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
  });
});
