// An MCP server is bounded like a handler: 1 MiB per answer, streams cut at the deadline, short
// stored errors, no redirects, and list_changed notifications debounced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { type ScriptedReply, type ScriptedServer, listedTool, startScriptedServer } from '../support/mcp-servers.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

let api: TestApi;
const servers: ScriptedServer[] = [];

beforeAll(async () => {
  api = await startTestApi({ MCP_CALL_TIMEOUT_S: '2' });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await api.close();
});

const TWO_MIB = 'x'.repeat(2 * 1024 * 1024);

async function serve(script: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> {
  const server = await startScriptedServer(script);
  servers.push(server);
  return server;
}

/** An agent with the tool `t` of a server that answers its calls with `reply`. */
async function agentCalling(reply: () => ScriptedReply) {
  const server = await serve({ toolsList: () => ({ result: { tools: [listedTool('t')] } }), toolsCall: reply });
  const ctx = await mcpAgent(api, server.url, ['t']);
  const call = () =>
    api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${ctx.prefix}t`, dialog_id: 'd' },
    });
  return { server, ctx, call };
}

describe('an MCP server answer over 1 MiB', () => {
  it.each([
    [
      'a JSON result (declared length)',
      (): ScriptedReply => ({ result: { content: [{ type: 'text', text: TWO_MIB }] } }),
    ],
    [
      'a result in an SSE stream (counted)',
      (): ScriptedReply => ({ result: { content: [{ type: 'text', text: TWO_MIB }] }, as: 'sse' }),
    ],
    [
      'an error body',
      (): ScriptedReply => ({ http: { status: 500, headers: { 'content-type': 'text/plain' }, body: TWO_MIB } }),
    ],
  ])('fails the call with response_too_large: %s', async (_, reply) => {
    const { call } = await agentCalling(reply);
    const started = Date.now();
    const response = await call();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'failed',
      error: { kind: 'response_too_large', message: expect.stringMatching(/1 MiB/) },
    });
    expect(Date.now() - started).toBeLessThan(1900); // at once, not at the 2 s deadline
  });

  it('fails a refresh whose tools/list page is over 1 MiB, keeping the previous snapshot', async () => {
    let huge = false;
    const server = await serve({
      toolsList: () => ({ result: { tools: [listedTool('t', huge ? TWO_MIB : 'small')] }, as: huge ? 'sse' : 'json' }),
    });
    const ctx = await mcpAgent(api, server.url, ['t']);
    huge = true;
    const refresh = await api.request('POST', `/v1/apps/${ctx.app.id}/mcp/refresh`, { token: ctx.dev });
    expect(refresh.status).toBe(503);
    expect(refresh.body.detail).toMatch(/larger than 1 MiB/);
    const snapshot = await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev });
    expect(snapshot.body.data).toMatchObject([{ name: 't', description: 'small' }]);
    expect(snapshot.body.last_error).toMatch(/larger than 1 MiB/);
  });
});

describe('an MCP server', () => {
  it('that streams an answer that never ends: the call times out at its deadline and the stream is cut', async () => {
    const { server, call } = await agentCalling(() => ({ endless: true }));
    const started = Date.now();
    const response = await call();
    expect(response.body).toMatchObject({
      status: 'failed',
      error: { kind: 'timeout', message: 'the MCP server did not answer within 2 s' },
    });
    await eventually(() => expect(server.streamsClosed).toBe(1), { timeoutMs: 1500, intervalMs: 50 });
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('that cuts its answer midway: the call fails at once as mcp_unavailable and is recorded', async () => {
    const { call, ctx } = await agentCalling(() => ({ cut: true }));
    const started = Date.now();
    const response = await call();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', error: { kind: 'mcp_unavailable' } });
    expect(Date.now() - started).toBeLessThan(1900); // at once, not at the 2 s deadline
    const stored = await api.request('GET', `${ctx.base}/tool-calls/${response.body.call_id}`, { token: ctx.agent });
    expect(stored.body).toMatchObject({ status: 'failed', error: { kind: 'mcp_unavailable' } });
  });

  it('whose error texts are long: what is stored is cut to a few KiB', async () => {
    const long = 'e'.repeat(200 * 1024);
    const { call } = await agentCalling(() => ({
      http: { status: 500, headers: { 'content-type': 'text/plain' }, body: long },
    }));
    const failed = await call();
    expect(failed.body).toMatchObject({ status: 'failed', error: { kind: 'mcp_unavailable' } });
    expect(failed.body.error.message.length).toBeLessThan(4096);
    expect(failed.body.error.message).toMatch(/… \(cut: \d+ characters\)$/);

    const { call: toolError, ctx } = await agentCalling(() => ({
      result: { content: [{ type: 'text', text: long }], isError: true },
    }));
    const refused = await toolError();
    expect(refused.body).toMatchObject({ status: 'failed', error: { kind: 'tool_error' } });
    expect(refused.body.error.message.length).toBeLessThan(4096);
    const detail = await api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${refused.body.call_id}`, {
      token: ctx.dev,
    });
    expect(detail.body.attempts[0].error.length).toBeLessThan(4096);
  });

  it('that redirects is not followed, not even within its own origin', async () => {
    const { server, call } = await agentCalling(() => ({ http: { status: 307, headers: { location: '/elsewhere' } } }));
    const response = await call();
    expect(response.body).toMatchObject({
      status: 'failed',
      error: {
        kind: 'redirect',
        message: expect.stringMatching(/answered 307 \(redirect to \/elsewhere\); redirects are not followed/),
      },
    });
    expect(server.paths).not.toContain('/elsewhere');

    const moved = await serve({ toolsList: () => ({ http: { status: 308, headers: { location: server.url } } }) });
    const app = await mcpAgent(api, server.url, []);
    await api.request('PUT', `/v1/apps/${app.app.id}/agent-tools`, {
      token: app.dev,
      body: { enabled: true, mode: 'mcp', mcp: { url: moved.url, auth_header_value_action: 'clear' } },
    });
    const refresh = await api.request('POST', `/v1/apps/${app.app.id}/mcp/refresh`, { token: app.dev });
    expect(refresh.status).toBe(503);
    expect(refresh.body.detail).toMatch(/redirects are not followed/);
  });

  it('that sends a burst of list_changed notifications gets at most one refresh in flight, a few seconds apart', async () => {
    let tools = ['a'];
    const server = await serve({ toolsList: () => ({ result: { tools: tools.map((name) => listedTool(name)) } }) });
    const ctx = await mcpAgent(api, server.url, ['a']);
    await eventually(() => expect(server.openStreams()).toBe(1), { timeoutMs: 5000, intervalMs: 50 });
    const lists = () => server.methods.filter((method) => method === 'tools/list').length;
    const before = lists();
    tools = ['a', 'b'];
    server.notifyToolsChanged(30);
    await eventually(() => expect(lists()).toBe(before + 1), { timeoutMs: 2000, intervalMs: 50 });
    tools = ['a', 'b', 'c'];
    server.notifyToolsChanged(30);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(lists()).toBe(before + 1); // the second burst waits for the interval
    const names = async () =>
      (await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev })).body.data.map(
        (t: { name: string }) => t.name,
      );
    await eventually(async () => expect(await names()).toHaveLength(3), { timeoutMs: 5000, intervalMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(lists()).toBe(before + 2);
  }, 20_000);
});
