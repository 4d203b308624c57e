// Sessions with an app's MCP server do not outlive its settings: a changed URL or auth header, its agent tools
// switched off, or the app deleted ends every session and event stream with the old server, in every API replica;
// an idle session ends too. Counted on a real (stateful, SDK-built) MCP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { type SessionEchoServer, startSessionEchoServer } from '../support/mcp-servers.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

let a: TestApi;
let b: TestApi;
const servers: SessionEchoServer[] = [];

beforeAll(async () => {
  a = await startTestApi();
  b = await startTestApi({}, a); // a second replica: the same database and Redis prefix
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await Promise.all([a.close(), b.close()]);
});

async function serve(): Promise<SessionEchoServer> {
  const server = await startSessionEchoServer();
  servers.push(server);
  return server;
}

const streamsWith = (server: SessionEchoServer, key: string) => server.openStreams().filter((k) => k === key).length;

/** An app on `server` with auth header X-Key: old, its snapshot loaded through replica A and a call made on each. */
async function appWithSessions(server: SessionEchoServer) {
  const ctx = await mcpAgent(a, server.url, ['whoami'], { headerName: 'X-Key', headerValue: 'old' });
  for (const api of [a, b]) {
    const call = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${ctx.prefix}whoami`, dialog_id: 'd' },
    });
    expect(call.body.status).toBe('succeeded');
  }
  // A: the app's own session (the snapshot) and the agent's; B: the agent's. Each holds an event stream open.
  await eventually(() => expect(streamsWith(server, 'old')).toBe(3), { timeoutMs: 5000, intervalMs: 50 });
  return ctx;
}

type Ctx = Awaited<ReturnType<typeof appWithSessions>>;

describe("an app's MCP sessions", () => {
  it.each([
    [
      'its URL changes',
      async (ctx: Ctx) => {
        const next = await serve();
        const mcp = { url: next.url, auth_header_value_action: 'preserve' };
        return a.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
          token: ctx.dev,
          body: { enabled: true, mode: 'mcp', mcp },
        });
      },
    ],
    [
      'its auth header is cleared',
      async (ctx: Ctx, server: SessionEchoServer) =>
        a.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
          token: ctx.dev,
          body: { enabled: true, mode: 'mcp', mcp: { url: server.url, auth_header_value_action: 'clear' } },
        }),
    ],
    [
      'its agent tools are switched off',
      async (ctx: Ctx, server: SessionEchoServer) =>
        a.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
          token: ctx.dev,
          body: { enabled: false, mode: 'mcp', mcp: { url: server.url, auth_header_value_action: 'preserve' } },
        }),
    ],
    [
      'it is deleted',
      async (ctx: Ctx) => a.request('DELETE', `/v1/apps/${ctx.app.id}?confirm=true`, { token: ctx.dev }),
    ],
  ])('end with the old server in every replica at once when %s', async (_, change) => {
    const server = await serve();
    const ctx = await appWithSessions(server);
    const changed = await change(ctx, server);
    expect(changed.status).toBeLessThan(300);
    const sentBefore = server.requests.length;
    await eventually(() => expect(streamsWith(server, 'old')).toBe(0), { timeoutMs: 1500, intervalMs: 20 });
    // The SDK reconnects a lost event stream within about 2 s: nothing comes back with the old header.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(server.requests.slice(sentBefore).filter((key) => key === 'old')).toEqual([]);
    expect(streamsWith(server, 'old')).toBe(0);
  });

  it('end once idle for MCP_SESSION_IDLE_S, with a DELETE, and open again for the next call', async () => {
    const idle = await startTestApi({ MCP_SESSION_IDLE_S: '1' }, a);
    try {
      const server = await serve();
      const ctx = await mcpAgent(idle, server.url, ['whoami']);
      const call = () =>
        idle.request('POST', `${ctx.base}/tool-calls`, {
          token: ctx.agent,
          body: { tool: `${ctx.prefix}whoami`, dialog_id: 'd' },
        });
      expect((await call()).body.status).toBe('succeeded');
      expect(server.openSessions()).toBe(2); // the app's own (snapshot) and the agent's
      await eventually(
        () => {
          expect(server.openStreams()).toEqual([]);
          expect(server.openSessions()).toBe(0);
        },
        { timeoutMs: 4000, intervalMs: 50 },
      );
      expect((await call()).body.status).toBe('succeeded');
      expect(server.openSessions()).toBe(1);
    } finally {
      await idle.close();
    }
  });
});
