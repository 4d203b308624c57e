// Toolgate as an MCP client: apps backed by the real server-everything and an SDK-built server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EverythingServer,
  type ScriptedServer,
  listedTool,
  startAuthCheckingServer,
  startEverything,
  startScriptedServer,
} from '../support/mcp-servers.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

let api: TestApi;
let everything: EverythingServer;

beforeAll(async () => {
  everything = await startEverything();
  api = await startTestApi();
}, 60_000);
afterAll(async () => {
  await api.close();
  await everything.stop();
});

describe('the snapshot of an MCP server', () => {
  it('lists every tool of server-everything, the task-only one marked unavailable with the reason', async () => {
    const ctx = await mcpAgent(api, everything.url, []);
    const snapshot = await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev });
    expect(snapshot.status).toBe(200);
    const names = snapshot.body.data.map((t: { name: string }) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'echo',
        'get-sum',
        'get-tiny-image',
        'trigger-long-running-operation',
        'simulate-research-query',
      ]),
    );
    expect(snapshot.body.refreshed_at).toEqual(expect.any(String));
    expect(snapshot.body.last_error).toBeNull();
    const echo = snapshot.body.data.find((t: { name: string }) => t.name === 'echo');
    expect(echo).toMatchObject({
      available: true,
      input_schema: { type: 'object', properties: { message: expect.any(Object) } },
      annotations: expect.any(Object),
    });
    const research = snapshot.body.data.find((t: { name: string }) => t.name === 'simulate-research-query');
    expect(research).toMatchObject({ available: false, reason: expect.stringMatching(/only run as a task/) });

    const installable = await api.request(
      'GET',
      `/v1/projects/${ctx.projectId}/installations/${ctx.installationId}/tools`,
      { token: ctx.project },
    );
    const installableNames = installable.body.data.map((t: { name: string }) => t.name);
    expect(installableNames).toContain('echo');
    expect(installableNames).not.toContain('simulate-research-query');
  });

  it('of a server that lists one name twice keeps every copy, unavailable ("listed twice"), and records the refresh', async () => {
    const server = await startScriptedServer({
      toolsList: () => ({
        result: { tools: [listedTool('dup', 'first'), listedTool('ok'), listedTool('dup', 'second')] },
      }),
    });
    try {
      const ctx = await mcpAgent(api, server.url, ['ok']);
      const snapshot = (await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev })).body;
      expect(snapshot.data.map((t: { name: string; available: boolean }) => [t.name, t.available])).toEqual([
        ['dup', false],
        ['ok', true],
        ['dup', false],
      ]);
      expect(snapshot.data[0].reason).toMatch(/^listed twice/);
      expect(snapshot.data[2]).toMatchObject({ description: 'second', reason: snapshot.data[0].reason });
      expect(snapshot.refreshed_at).toEqual(expect.any(String));
      expect(snapshot.last_error).toBeNull();
      const installable = await api.request(
        'GET',
        `/v1/projects/${ctx.projectId}/installations/${ctx.installationId}/tools`,
        { token: ctx.project },
      );
      expect(installable.body.data.map((t: { name: string }) => t.name)).toEqual(['ok']);
      const dup = await api.request('POST', `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}/tool-instances`, {
        token: ctx.project,
        body: { installation_id: ctx.installationId, tool_name: 'dup' },
      });
      expect(dup.status).toBeGreaterThanOrEqual(400);
      expect(dup.status).toBeLessThan(500);
    } finally {
      await server.stop();
    }
  });

  it('follows nextCursor to the last page', async () => {
    const pages: Record<string, { tools: unknown[]; nextCursor?: string }> = {
      first: { tools: [listedTool('one'), listedTool('two')], nextCursor: 'page-2' },
      'page-2': { tools: [listedTool('three')] },
    };
    const server = await startScriptedServer({
      toolsList: (cursor) => ({ result: pages[cursor ?? 'first'] }),
      toolsCall: (name) => ({ result: { content: [{ type: 'text', text: `ran ${name}` }] } }),
    });
    try {
      const ctx = await mcpAgent(api, server.url, ['three']);
      const snapshot = (await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev })).body;
      expect(snapshot.data.map((t: { name: string }) => t.name)).toEqual(['one', 'two', 'three']);
      const call = await api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: `${ctx.prefix}three`, dialog_id: 'd' },
      });
      expect(call.body).toMatchObject({ status: 'succeeded', result_text: 'ran three' });
    } finally {
      await server.stop();
    }
  });

  it('keeps the last snapshot and records why when a refresh fails', async () => {
    const server = await startEverything();
    try {
      const ctx = await mcpAgent(api, server.url, ['echo']);
      const before = (await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev })).body;
      await server.stop();
      const refresh = await api.request('POST', `/v1/apps/${ctx.app.id}/mcp/refresh`, { token: ctx.dev });
      expect(refresh.status).toBe(503);
      expect(refresh.headers.get('content-type')).toMatch(/problem\+json/);
      expect(refresh.body.detail).toMatch(/could not load tools from http:\/\/127\.0\.0\.1:\d+\/mcp/);
      expect(refresh.body.detail).toMatch(/previous snapshot \(\d+ tools\) is kept/);
      const after = (await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev })).body;
      expect(after.data).toEqual(before.data);
      expect(after.refreshed_at).toBe(before.refreshed_at);
      expect(after.last_error).toMatch(/could not load tools/);
      const call = await api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: `${ctx.prefix}echo`, dialog_id: 'd', arguments: { message: 'hi' } },
      });
      expect(call.status).toBe(200);
      expect(call.body).toMatchObject({ status: 'failed', error: { kind: 'mcp_unavailable' } });
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('sends the auth header on every request, and records a server that refuses without it', async () => {
    const server = await startAuthCheckingServer('X-Api-Key', 'key-123');
    try {
      const ctx = await mcpAgent(api, server.url, ['shout'], { headerName: 'X-Api-Key', headerValue: 'key-123' });
      const call = await api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: `${ctx.prefix}shout`, dialog_id: 'd', arguments: { text: 'hi' } },
      });
      expect(call.body).toMatchObject({ status: 'succeeded', result_text: 'HI' });
      expect(server.seen.length).toBeGreaterThan(2);
      expect(server.seen.every((value) => value === 'key-123')).toBe(true);
      // The header that ties a request to its scope inside Toolgate is taken out before the request leaves.
      expect(server.internal).toEqual([]);

      await api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
        token: ctx.dev,
        body: { enabled: true, mode: 'mcp', mcp: { url: server.url, auth_header_value_action: 'clear' } },
      });
      const refused = await api.request('POST', `/v1/apps/${ctx.app.id}/mcp/refresh`, { token: ctx.dev });
      expect(refused.status).toBe(503);
      expect(refused.text).not.toContain('key-123');
    } finally {
      await server.stop();
    }
  });
});

describe('calling MCP tools through the REST agent API', () => {
  it('lists them with the app prefix, their input schema and annotations', async () => {
    const ctx = await mcpAgent(api, everything.url, ['echo', 'get-sum'], { displayName: 'Everything' });
    const tools = await api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
    expect(tools.body.data.map((t: { name: string }) => t.name)).toEqual([`${ctx.prefix}echo`, `${ctx.prefix}get-sum`]);
    expect(tools.body.data[0]).toMatchObject({
      description: expect.stringMatching(/^\[App "Everything"\] /),
      execution_mode: 'instant',
      parameters: { type: 'object' },
    });
  });

  it('runs echo, get-sum and get-tiny-image, with result and result_text', async () => {
    const ctx = await mcpAgent(api, everything.url, ['echo', 'get-sum', 'get-tiny-image']);
    const call = (tool: string, args: unknown) =>
      api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: ctx.prefix + tool, dialog_id: 'd', arguments: args },
      });

    const echo = await call('echo', { message: 'hello' });
    expect(echo.status).toBe(200);
    expect(echo.body).toEqual({
      call_id: expect.any(String),
      status: 'succeeded',
      result: expect.objectContaining({ content: [{ type: 'text', text: 'Echo: hello' }] }),
      result_text: 'Echo: hello',
    });

    const sum = await call('get-sum', { a: 2, b: 3 });
    expect(sum.body.result_text).toMatch(/The sum of 2 and 3 is 5/);

    const image = await call('get-tiny-image', null);
    expect(image.body.status).toBe('succeeded');
    const blocks = image.body.result.content as { type: string; mimeType?: string; data?: string }[];
    expect(blocks.some((b) => b.type === 'image' && b.mimeType === 'image/png' && (b.data?.length ?? 0) > 100)).toBe(
      true,
    );
    expect(image.body.result_text).toMatch(/\[image \(image\/png\) not passed: only text reaches the model\]/);

    const detail = await api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${echo.body.call_id}`, {
      token: ctx.dev,
    });
    expect(detail.body).toMatchObject({
      status: 'succeeded',
      tool_name: 'echo',
      execution_mode: 'instant',
      attempts: [{ n: 1, outcome: 'success' }],
    });
  });

  it("checks arguments against the tool's inputSchema, and refuses arguments that are not an object", async () => {
    const ctx = await mcpAgent(api, everything.url, ['get-sum']);
    const bad = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${ctx.prefix}get-sum`, dialog_id: 'd', arguments: { a: 'x' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([
      { path: 'arguments.b', message: 'required' },
      { path: 'arguments.a', message: 'must be number' },
    ]);
    const notObject = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${ctx.prefix}get-sum`, dialog_id: 'd', arguments: [1] },
    });
    expect(notObject.status).toBe(422);
  });
});

describe("an MCP tool's inputSchema", () => {
  const booking = {
    type: 'object',
    properties: {
      date: { type: 'string', format: 'date' },
      seats: { type: 'integer', minimum: 1 },
      kind: { enum: ['table', 'bar'] },
    },
    required: ['date', 'seats'],
    additionalProperties: false,
  };
  let server: ScriptedServer;
  const received: Record<string, unknown>[] = [];

  beforeAll(async () => {
    server = await startScriptedServer({
      toolsList: () => ({
        result: {
          tools: [
            { name: 'book', inputSchema: booking },
            listedTool('ping'),
            // a $ref the validator cannot resolve: the call goes out unchecked
            { name: 'odd', inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } } },
          ],
        },
      }),
      toolsCall: (name, args) => {
        received.push({ name, args });
        return { result: { content: [{ type: 'text', text: `${name} done` }] } };
      },
    });
  });
  afterAll(() => server.stop());

  it('refuses arguments that break it with 422 listing every problem, and sends nothing', async () => {
    const ctx = await mcpAgent(api, server.url, ['book', 'ping', 'odd']);
    const call = (tool: string, args: unknown) =>
      api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: ctx.prefix + tool, dialog_id: 'd', arguments: args },
      });
    const before = received.length;

    const bad = await call('book', { seats: 0, kind: 'sofa', date: 'soon', extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    // the order follows the schema as Postgres stores it (jsonb orders keys)
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect([...bad.body.errors].sort(byPath)).toEqual([
      { path: 'arguments.date', message: 'must match format "date"' },
      { path: 'arguments.extra', message: 'unknown argument: the tool takes date, kind, seats' },
      { path: 'arguments.kind', message: 'must be one of "table", "bar"' },
      { path: 'arguments.seats', message: 'must be >= 1' },
    ]);
    expect([...(await call('book', {})).body.errors].sort(byPath)).toEqual([
      { path: 'arguments.date', message: 'required' },
      { path: 'arguments.seats', message: 'required' },
    ]);
    expect(received.length).toBe(before);
    const history = await api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls`, { token: ctx.dev });
    expect(history.body.data).toEqual([]);

    const good = await call('book', { date: '2026-12-01', seats: 2 });
    expect(good.body).toMatchObject({ status: 'succeeded', result_text: 'book done' });
    expect((await call('odd', { a: 'anything' })).body).toMatchObject({ status: 'succeeded', result_text: 'odd done' });
    // "" means "no arguments", as {} does
    expect((await call('ping', '')).body).toMatchObject({ status: 'succeeded', result_text: 'ping done' });
    expect(received.slice(before)).toEqual([
      { name: 'book', args: { date: '2026-12-01', seats: 2 } },
      { name: 'odd', args: { a: 'anything' } },
      { name: 'ping', args: {} },
    ]);
  });
});
