// Agent ids are the host platform's and repeat across projects: everything keyed by an agent is
// keyed by project and agent together. Each test has two projects whose agents share an id.
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentFacingPrefix, agentWithTools, giveAppToAgent, httpTool } from './support/fixtures.js';
import { mcpAgent } from './support/mcp-fixtures.js';
import { type SessionEchoServer, startSessionEchoServer } from './support/mcp-servers.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { WebhookHandler } from './support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;
let sessions: SessionEchoServer;
let counter = 0;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  sessions = await startSessionEchoServer();
  stack = await startTestStack({ RETRY_TIME_SCALE: '0.05', MCP_WAIT_DEADLINE_S: '10', RECONCILE_INTERVAL_MS: '500' });
}, 60_000);
afterAll(async () => {
  await stack.close();
  await handler.stop();
  await sessions.stop();
});

/** One app given to the agent `agentId` of two projects. */
async function twoProjects(tools: Record<string, unknown>[]) {
  counter += 1;
  const agentId = `same_agent_${counter}`;
  const first = await agentWithTools(stack.api, tools, { agentId });
  handler.secrets = [first.app.webhook_secret];
  const second = await giveAppToAgent(
    stack.api,
    first.app.id,
    first.tools.map((t) => t.name),
    { agentId },
  );
  expect(second.agentId).toBe(first.agentId);
  expect(second.projectId).not.toBe(first.projectId);
  return { first, second, prefix: agentFacingPrefix(first.app) };
}

describe('two projects whose agents share an id', () => {
  it("get a call each for the same Idempotency-Key and body, never the other one's call or result", async () => {
    const path = `/tenants/idempotency-${Math.random()}`;
    const { first, second, prefix } = await twoProjects([httpTool({ handler_url: handler.url(path) })]);
    handler.on(path, ({ event }) => ({
      status: 200,
      body: JSON.stringify({ project: event.project_id }),
      headers: { 'content-type': 'application/json' },
    }));
    const body = { tool: `${prefix}find_customer`, dialog_id: 'd1', arguments: { customer_id: 'c1' } };
    const headers = { 'idempotency-key': 'order-42' };
    const one = await stack.api.request('POST', `${first.base}/tool-calls`, { token: first.agent, body, headers });
    const two = await stack.api.request('POST', `${second.base}/tool-calls`, { token: second.agent, body, headers });
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(two.headers.get('idempotent-replayed')).toBeNull();
    expect(two.body.call_id).not.toBe(one.body.call_id);
    expect(one.body.result).toEqual({ project: first.projectId });
    expect(two.body.result).toEqual({ project: second.projectId });
    expect(handler.at(path)).toHaveLength(2);
    // Each project's repeat still gets its own first answer back.
    const again = await stack.api.request('POST', `${second.base}/tool-calls`, { token: second.agent, body, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(two.body);
  });

  it("do not cancel each other's MCP requests that carry the same JSON-RPC id", async () => {
    const path = `/tenants/cancel-${Math.random()}`;
    handler.on(path, () => ({ status: 500 }));
    const { first, second, prefix } = await twoProjects([
      httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' }),
    ]);
    const callIds: (string | number)[] = [];
    const recordingFetch = async (url: string | URL, init?: RequestInit) => {
      const message =
        typeof init?.body === 'string'
          ? (JSON.parse(init.body) as { method?: string; id?: string | number })
          : undefined;
      if (message?.method === 'tools/call' && message.id !== undefined) callIds.push(message.id);
      return fetch(url, init);
    };
    const client = new V1Client({ name: 'tenant-1', version: '1.0.0' });
    await client.connect(
      new V1Transport(new URL(`${stack.api.baseUrl}${first.base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${first.agent}` } },
        fetch: recordingFetch,
      }),
    );
    const abort = new AbortController();
    try {
      const pending = client.callTool({ name: `${prefix}find_customer`, arguments: { customer_id: 'x' } }, undefined, {
        signal: abort.signal,
        timeout: 30_000,
      });
      pending.catch(() => undefined);
      await eventually(() => expect(handler.at(path).length).toBeGreaterThanOrEqual(1), { timeoutMs: 10_000 });
      const eventId = handler.at(path)[0].event.event_id;
      expect(callIds).toHaveLength(1);

      // The other project's client cancels its own request of the same id.
      const cancel = await fetch(`${stack.api.baseUrl}${second.base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${second.agent}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: callIds[0], reason: 'mine' },
        }),
      });
      expect(cancel.status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const [row] = await stack.api.sql('SELECT status FROM tool_calls WHERE event_id = $1', [eventId]);
      expect(row.status).not.toBe('cancelled');
      await eventually(() => expect(handler.forEvent(eventId).length).toBeGreaterThanOrEqual(2), { timeoutMs: 10_000 });
    } finally {
      abort.abort();
      await client.close();
    }
  }, 30_000);

  it('see their own tool lists, also when "project:agent" would read the same', async () => {
    const alpha = await agentWithTools(stack.api, [httpTool({ name: 'alpha' })], { projectId: 't:x', agentId: 'y' });
    const beta = await agentWithTools(stack.api, [httpTool({ name: 'beta' })], { projectId: 't', agentId: 'x:y' });
    const names = async (ctx: typeof alpha) =>
      ((await stack.api.request('GET', `${ctx.base}/tools`, { token: ctx.agent })).body.data as { name: string }[]).map(
        (t) => t.name,
      );
    for (let i = 0; i < 2; i += 1) {
      expect(await names(alpha)).toEqual([agentFacingName(alpha.app, 'alpha')]);
      expect(await names(beta)).toEqual([agentFacingName(beta.app, 'beta')]);
    }
    const { first, second } = await twoProjects([httpTool({ name: 'gamma' })]);
    const extra = await agentWithTools(stack.api, [httpTool({ name: 'delta' })], {
      projectId: second.projectId,
      agentId: second.agentId,
    });
    expect(await names(first)).toHaveLength(1);
    expect(await names(extra)).toHaveLength(2);
  });

  it("each have their own MCP session with the app's server", async () => {
    const first = await mcpAgent(stack.api, sessions.url, ['whoami']);
    const second = await giveAppToAgent(stack.api, first.app.id, ['whoami'], { agentId: first.agentId });
    const whoami = async (ctx: { base: string; agent: string }) => {
      const call = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: `${first.prefix}whoami`, dialog_id: 'd' },
      });
      expect(call.body.status, JSON.stringify(call.body)).toBe('succeeded');
      return call.body.result_text as string;
    };
    const a1 = await whoami(first);
    const b1 = await whoami(second);
    const a2 = await whoami(first);
    expect(a1).toMatch(/^[0-9a-f-]{36}$/);
    expect(a2).toBe(a1);
    expect(b1).not.toBe(a1);
    expect(await whoami(second)).toBe(b1);
  });
});
