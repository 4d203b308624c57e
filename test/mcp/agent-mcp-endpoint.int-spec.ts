// Toolgate as an MCP server: the official SDK clients (v1: 2025-11-25, v2 auto: 2026-07-28) against
// /v1/agents/{agent_id}/mcp, with real HTTP handlers, the real worker and server-everything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { agentFacingPrefix, agentWithTools, httpTool } from '../support/fixtures.js';
import { callToolWith, connectAgentMcp, protocolOf } from '../support/mcp-clients.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { type EverythingServer, startEverything, startProgressBurstServer } from '../support/mcp-servers.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { agentToken } from '../support/tokens.js';
import { WebhookHandler } from '../support/webhook-handler.js';

const SCALE = 0.05; // 5m window: attempts at 0, 0.75 s, 3 s, 9 s, 15 s
let stack: TestStack;
let handler: WebhookHandler;
let everything: EverythingServer;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  everything = await startEverything();
  stack = await startTestStack({
    RETRY_TIME_SCALE: String(SCALE),
    MCP_WAIT_DEADLINE_S: '6',
    RECONCILE_INTERVAL_MS: '500',
  });
}, 60_000);
afterAll(async () => {
  await stack.close();
  await handler.stop();
  await everything.stop();
});

async function httpAgent(tools: Record<string, unknown>[]) {
  const ctx = await agentWithTools(stack.api, tools);
  handler.secrets = [ctx.app.webhook_secret];
  return { ...ctx, prefix: agentFacingPrefix(ctx.app) };
}

describe.each(['v1', 'v2'] as const)('with the %s SDK client', (kind) => {
  it('lists exactly the tools of the REST listing, and calls an instant HTTP tool', async () => {
    const path = `/mcp-${kind}/instant`;
    const ctx = await httpAgent([
      httpTool({ handler_url: handler.url(path) }),
      httpTool({ name: 'plain_text', handler_url: handler.url(`${path}/text`) }),
    ]);
    handler.on(`${path}/text`, () => ({ status: 200, body: 'just words', headers: { 'content-type': 'text/plain' } }));
    const client = await connectAgentMcp(stack.api, kind, ctx.agentId, ctx.agent);
    try {
      expect(protocolOf(client)).toBe(kind === 'v1' ? '2025-11-25' : '2026-07-28');
      const rest = (await stack.api.request('GET', `${ctx.base}/tools`, { token: ctx.agent })).body.data;
      const listed = (await client.listTools()).tools;
      expect(listed.map((t) => [t.name, t.description, t.inputSchema])).toEqual(
        rest.map((t: any) => [t.name, t.description, t.parameters]),
      );
      expect(listed[0].description).toMatch(/^\[App "Shop"\] /);

      const result = await client.callTool({ name: `${ctx.prefix}find_customer`, arguments: { customer_id: 'c7' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ echo: { customer_id: 'c7' } });
      expect(result.content).toEqual([{ type: 'text', text: '{"echo":{"customer_id":"c7"}}' }]);
      const text = await client.callTool({ name: `${ctx.prefix}plain_text`, arguments: { customer_id: 'c7' } });
      expect(text.content).toEqual([{ type: 'text', text: 'just words' }]);
      expect(text.structuredContent).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('answers a failing handler and bad arguments with isError results the model can read', async () => {
    const path = `/mcp-${kind}/failing`;
    handler.on(path, () => ({
      status: 404,
      body: '{"error":"customer 42 not found"}',
      headers: { 'content-type': 'application/json' },
    }));
    handler.on(`${path}/empty`, () => ({ status: 200 }));
    const ctx = await httpAgent([
      httpTool({ handler_url: handler.url(path) }),
      httpTool({ name: 'empty', handler_url: handler.url(`${path}/empty`) }),
    ]);
    const client = await connectAgentMcp(stack.api, kind, ctx.agentId, ctx.agent);
    try {
      const failed = await client.callTool({ name: `${ctx.prefix}find_customer`, arguments: { customer_id: 'x' } });
      expect(failed.isError).toBe(true);
      expect(failed.content[0].text).toBe('The tool failed (http_status 404): answered 404: customer 42 not found');
      const empty = await client.callTool({ name: `${ctx.prefix}empty`, arguments: { customer_id: 'x' } });
      expect(empty.isError).toBeFalsy();
      expect(empty.content).toEqual([{ type: 'text', text: 'OK' }]);
      const before = handler.at(path).length;
      const bad = await client.callTool({
        name: `${ctx.prefix}find_customer`,
        arguments: { customer_id: 5, extra: true },
      });
      expect(bad.isError).toBe(true);
      expect(bad.content[0].text).toMatch(
        /refused, nothing was sent: arguments\.extra: unknown parameter.*arguments\.customer_id: must be a string/,
      );
      const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
      expect(unknown.isError).toBe(true);
      expect(unknown.content[0].text).toMatch(/has no tool "no_such_tool"/);
      expect(handler.at(path).length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it('blocks on a wait call while it is retried, sending progress, and returns its result', async () => {
    const path = `/mcp-${kind}/wait`;
    handler.on(path, ({ attempt }) =>
      attempt < 3
        ? { status: 503 }
        : { status: 200, body: '{"done":true}', headers: { 'content-type': 'application/json' } },
    );
    const ctx = await httpAgent([
      httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' }),
    ]);
    const client = await connectAgentMcp(stack.api, kind, ctx.agentId, ctx.agent);
    try {
      const progress: { progress: number; total?: number; message?: string }[] = [];
      const result = await callToolWith(
        kind,
        client,
        { name: `${ctx.prefix}find_customer`, arguments: { customer_id: 'x' } },
        { onprogress: (p: any) => progress.push(p), timeout: 30_000 },
      );
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ done: true });
      expect(progress.map((p) => p.message)).toEqual([
        expect.stringMatching(/^attempt 1 of 5 failed: 503, next in \d+ ms$/),
        expect.stringMatching(/^attempt 2 of 5 failed: 503, next in \d s$/),
      ]);
      expect(progress.map((p) => [p.progress, p.total])).toEqual([
        [1, 5],
        [2, 5],
      ]);
    } finally {
      await client.close();
    }
  });

  it('answers a background call at once, and a wait call still running at the deadline with how to poll it', async () => {
    const path = `/mcp-${kind}/slow`;
    handler.on(path, () => ({ status: 500 }));
    const ctx = await httpAgent([
      httpTool({ handler_url: handler.url(path), execution_mode: 'background', retry_window: '5m' }),
      httpTool({ name: 'waiting', handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' }),
    ]);
    const client = await connectAgentMcp(stack.api, kind, ctx.agentId, ctx.agent);
    try {
      const background = await client.callTool({ name: `${ctx.prefix}find_customer`, arguments: { customer_id: 'x' } });
      expect(background.content[0].text).toMatch(/^Accepted: call call_[0-9a-f]+ runs in the background/);
      const started = Date.now();
      const waiting = await callToolWith(
        kind,
        client,
        { name: `${ctx.prefix}waiting`, arguments: { customer_id: 'x' } },
        { timeout: 30_000 },
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(5_900);
      expect(waiting.isError).toBeFalsy();
      expect(waiting.content[0].text).toMatch(
        new RegExp(
          `^Still running after 6 s: call (call_[0-9a-f]+) .*GET .*/v1/agents/${ctx.agentId}/tool-calls/call_[0-9a-f]+\\?wait=60`,
        ),
      );
    } finally {
      await client.close();
    }
  }, 20_000);

  it('stops further attempts of a wait call when the client cancels', async () => {
    const path = `/mcp-${kind}/cancel`;
    handler.on(path, () => ({ status: 500 }));
    const ctx = await httpAgent([
      httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' }),
    ]);
    const client = await connectAgentMcp(stack.api, kind, ctx.agentId, ctx.agent);
    try {
      const abort = new AbortController();
      const pending = callToolWith(
        kind,
        client,
        { name: `${ctx.prefix}find_customer`, arguments: { customer_id: 'x' } },
        { signal: abort.signal, timeout: 30_000 },
      );
      await eventually(() => expect(handler.at(path).length).toBeGreaterThanOrEqual(1), {
        timeoutMs: 5000,
        intervalMs: 20,
      });
      abort.abort('user cancelled');
      await expect(pending).rejects.toThrow();
      const eventId = handler.at(path)[0].event.event_id;
      await eventually(
        async () => {
          const [row] = await stack.api.sql('SELECT status FROM tool_calls WHERE event_id = $1', [eventId]);
          expect(row.status).toBe('cancelled');
        },
        { timeoutMs: 5000, intervalMs: 100 },
      );
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(handler.forEvent(eventId)).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 20_000);

  it('passes MCP tools through: echo, get-sum, an image unchanged, and long-running progress', async () => {
    const ctx = await mcpAgent(stack.api, everything.url, [
      'echo',
      'get-sum',
      'get-tiny-image',
      'trigger-long-running-operation',
    ]);
    const client = await connectAgentMcp(stack.api, kind, ctx.agentId, ctx.agent);
    try {
      const listed = (await client.listTools()).tools;
      expect(listed.map((t) => t.name)).toEqual(
        ['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation'].map((n) => ctx.prefix + n),
      );
      expect(listed[0].annotations).toEqual(expect.objectContaining({ readOnlyHint: expect.any(Boolean) }));
      expect((await client.callTool({ name: `${ctx.prefix}echo`, arguments: { message: 'hi' } })).content).toEqual([
        { type: 'text', text: 'Echo: hi' },
      ]);
      expect(
        (await client.callTool({ name: `${ctx.prefix}get-sum`, arguments: { a: 20, b: 22 } })).content[0].text,
      ).toMatch(/is 42/);
      const bad = await client.callTool({ name: `${ctx.prefix}get-sum`, arguments: { a: 'twenty' } });
      expect(bad.isError).toBe(true);
      expect(bad.content).toEqual([
        {
          type: 'text',
          text: `The call of "${ctx.prefix}get-sum" was refused, nothing was sent: arguments.b: required; arguments.a: must be number.`,
        },
      ]);
      const calls = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls?tool_name=get-sum`, {
        token: ctx.dev,
      });
      expect(calls.body.data).toHaveLength(1); // only the good call reached the server
      const image = await client.callTool({ name: `${ctx.prefix}get-tiny-image`, arguments: {} });
      const png = image.content.find((c: { type: string }) => c.type === 'image');
      expect(png).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) });
      const progress: { progress: number; total?: number }[] = [];
      const long = await callToolWith(
        kind,
        client,
        { name: `${ctx.prefix}trigger-long-running-operation`, arguments: { duration: 1, steps: 3 } },
        { onprogress: (p: any) => progress.push(p), timeout: 20_000 },
      );
      expect(long.isError).toBeFalsy();
      expect(progress.map((p) => [p.progress, p.total])).toEqual([
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
    } finally {
      await client.close();
    }
  });
});

describe.each(['v1', 'v2'] as const)('progress reaching a %s SDK client', (kind) => {
  it("from an app's MCP server is paced to 4 a second, each message cut to 200 characters, the final one kept", async () => {
    const server = await startProgressBurstServer();
    try {
      const ctx = await mcpAgent(stack.api, server.url, ['burst']);
      const client = await connectAgentMcp(stack.api, kind, ctx.agentId, ctx.agent);
      try {
        const progress: { at: number; progress: number; total?: number; message?: string }[] = [];
        const result = await callToolWith(
          kind,
          client,
          { name: `${ctx.prefix}burst`, arguments: { count: 60, everyMs: 20 } },
          {
            onprogress: (p: any) => progress.push({ at: Date.now(), ...p }),
            timeout: 20_000,
          },
        );
        expect(result.content).toEqual([{ type: 'text', text: '60 steps done' }]);
        // 60 notifications over ~1.2 s: about 6 reach the client, the last being the final state
        expect(progress.length).toBeGreaterThanOrEqual(3);
        expect(progress.length).toBeLessThanOrEqual(8);
        expect(progress.at(-1)).toMatchObject({ progress: 60, total: 60 });
        for (const p of progress) expect(Array.from(p.message ?? '').length).toBeLessThanOrEqual(200);
        expect(progress[0].message).toBe(`step 1 ${'x'.repeat(192)}…`);
        // at most 4 in any second (sent 250 ms apart, so 5 span 1 s; 100 ms allowed for arrival jitter); the final
        // state is sent when the call ends, whatever the pace, so it is left out of the count
        const paced = progress.slice(0, -1);
        const perSecond = paced.map((p) => paced.filter((q) => q.at >= p.at && q.at < p.at + 900).length);
        expect(Math.max(...perSecond)).toBeLessThanOrEqual(4);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
});

/** A raw modern-era (2026-07-28) JSON-RPC POST to the agent's endpoint, as the v2 SDK client sends it. */
async function modernPost(url: string, token: string, method: string, params: Record<string, unknown>) {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'r1', method, params: { ...params, _meta: envelope } }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? JSON.parse(
        text
          .split('\n')
          .find((line) => line.startsWith('data: {"result"'))!
          .slice(6),
      )
    : JSON.parse(text);
  return { status: response.status, headers: response.headers, body: json };
}

describe('the endpoint', () => {
  it('answers a single 2026-07-28 tools/call and tools/list POST without a session, a refused tool as isError', async () => {
    const ctx = await httpAgent([httpTool({ handler_url: handler.url('/modern/instant') })]);
    const url = `${stack.api.baseUrl}${ctx.base}/mcp`;
    const call = { name: `${ctx.prefix}find_customer`, arguments: { customer_id: 'c9' } };
    const called = await modernPost(url, ctx.agent, 'tools/call', call);
    expect(called.status).toBe(200);
    expect(called.headers.get('mcp-session-id')).toBeNull();
    expect(called.body.result).toMatchObject({
      content: [{ type: 'text', text: '{"echo":{"customer_id":"c9"}}' }],
      structuredContent: { echo: { customer_id: 'c9' } },
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'toolgate' } },
    });
    const listed = await modernPost(url, ctx.agent, 'tools/list', {});
    expect(listed.body.result.tools.map((t: { name: string }) => t.name)).toEqual([call.name]);
    const refused = await modernPost(url, ctx.agent, 'tools/call', { name: `${ctx.prefix}nope`, arguments: {} });
    expect(refused.body.result).toMatchObject({ isError: true });
    expect(refused.body.result.content[0].text).toContain('was refused, nothing was sent');
  });

  it("writes an MCP tool's image result unchanged, running the call once", async () => {
    const ctx = await mcpAgent(stack.api, everything.url, ['get-tiny-image']);
    const url = `${stack.api.baseUrl}/v1/agents/${ctx.agentId}/mcp`;
    const image = await modernPost(url, ctx.agent, 'tools/call', {
      name: `${ctx.prefix}get-tiny-image`,
      arguments: {},
    });
    expect(image.status).toBe(200);
    expect(image.body.result.content).toContainEqual(
      expect.objectContaining({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) }),
    );
    const calls = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls?tool_name=get-tiny-image`, {
      token: ctx.dev,
    });
    expect(calls.body.data).toHaveLength(1);
  });

  it('refuses a missing or bad token (401), another agent (404) and a foreign Origin (403)', async () => {
    const ctx = await httpAgent([httpTool({ handler_url: handler.url('/unused') })]);
    const url = `${stack.api.baseUrl}${ctx.base}/mcp`;
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer nope' })).status).toBe(401);
    const other = await agentToken(ctx.projectId, 'another_agent');
    const notYours = await post({ authorization: `Bearer ${other}` });
    expect(notYours.status).toBe(404);
    expect(notYours.headers.get('content-type')).toMatch(/problem\+json/);
    const evil = await post({ authorization: `Bearer ${ctx.agent}`, origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect((await post({ authorization: `Bearer ${ctx.agent}`, origin: 'http://localhost:5173' })).status).toBe(200);
    await expect(connectAgentMcp(stack.api, 'v2', ctx.agentId, other)).rejects.toThrow();
  });
});
