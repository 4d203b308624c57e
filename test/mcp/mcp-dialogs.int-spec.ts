// The dialog a call made over the agent's MCP endpoint carries to the handler: the one the client names in
// _meta["toolgate/dialog_id"]; else one per MCP session; else (a client without a session) one per call; never one
// constant for every conversation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { type AgentMcpClient, connectAgentMcp } from '../support/mcp-clients.js';
import { type TestApi, startTestApi } from '../support/test-api.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let api: TestApi;
let handler: WebhookHandler;
let ctx: Awaited<ReturnType<typeof agentWithTools>>;
let tool: string;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  api = await startTestApi();
  ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url('/dialogs') })]);
  handler.secrets = [ctx.app.webhook_secret];
  tool = agentFacingName(ctx.app, 'find_customer');
});
afterAll(async () => {
  await api.close();
  await handler.stop();
});

/** Calls the tool over MCP (with `meta` as the request's _meta) and gives the dialog_id its webhook carried. */
async function dialogOfCall(client: AgentMcpClient, meta?: Record<string, unknown>): Promise<string> {
  const before = handler.at('/dialogs').length;
  const params = { name: tool, arguments: { customer_id: 'c1' }, ...(meta ? { _meta: meta } : {}) };
  const result = await client.callTool(params);
  expect(result.isError, JSON.stringify(result)).toBeFalsy();
  const received = handler.at('/dialogs');
  expect(received).toHaveLength(before + 1);
  return received[before].event.dialog_id;
}

async function withClient<T>(kind: 'v1' | 'v2', use: (client: AgentMcpClient) => Promise<T>): Promise<T> {
  const client = await connectAgentMcp(api, kind, ctx.agentId, ctx.agent);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

describe('a call over the MCP endpoint', () => {
  it.each(['v1', 'v2'] as const)('carries the dialog the %s client names in _meta', async (kind) => {
    await withClient(kind, async (client) => {
      expect(await dialogOfCall(client, { 'toolgate/dialog_id': 'dialog-42' })).toBe('dialog-42');
    });
  });

  it('without one, carries one dialog per MCP session (2025-11-25), never the session id itself', async () => {
    const [first, again, otherSession] = [
      ...(await withClient('v1', async (client) => [await dialogOfCall(client), await dialogOfCall(client)])),
      await withClient('v1', (client) => dialogOfCall(client)),
    ];
    expect(first).toMatch(/^mcp-session-[A-Za-z0-9_-]{22}$/);
    expect(again).toBe(first);
    expect(otherSession).toMatch(/^mcp-session-/);
    expect(otherSession).not.toBe(first);
  });

  it('without one and without a session (2026-07-28), carries a dialog of its own', async () => {
    const [first, second] = await withClient('v2', async (client) => [
      await dialogOfCall(client),
      await dialogOfCall(client),
    ]);
    expect(first).toMatch(/^mcp-call-/);
    expect(second).toMatch(/^mcp-call-/);
    expect(second).not.toBe(first);
  });

  it('is refused, with nothing sent, when the dialog it names is not a string of 1 to 200 characters', async () => {
    const before = handler.at('/dialogs').length;
    await withClient('v1', async (client) => {
      for (const dialog of [42, '', 'd'.repeat(201)]) {
        const params = { name: tool, arguments: { customer_id: 'c1' }, _meta: { 'toolgate/dialog_id': dialog } };
        const result = await client.callTool(params);
        expect(result.isError).toBe(true);
        expect(result.content[0].text).toContain(
          "_meta.toolgate/dialog_id: must be the host's dialog id, a string of 1 to 200 characters, or left out",
        );
      }
    });
    expect(handler.at('/dialogs')).toHaveLength(before);
  });

  it("carries the lead it names in _meta, and is refused, nothing sent, when that lead is not a lead's id", async () => {
    await withClient('v1', async (client) => {
      const before = handler.at('/dialogs').length;
      const named = { name: tool, arguments: { customer_id: 'c1' }, _meta: { 'toolgate/lead_id': 'lead-7' } };
      expect((await client.callTool(named)).isError).toBeFalsy();
      expect(handler.at('/dialogs')[before].event.lead_id).toBe('lead-7');
      for (const lead of [42, '', 'l'.repeat(201), { id: 'x' }]) {
        const params = { name: tool, arguments: { customer_id: 'c1' }, _meta: { 'toolgate/lead_id': lead } };
        const result = await client.callTool(params);
        expect(result.isError).toBe(true);
        expect(result.content[0].text).toContain(
          "_meta.toolgate/lead_id: must be the lead's id, a string of 1 to 200 characters, or left out",
        );
      }
      expect(handler.at('/dialogs')).toHaveLength(before + 1);
    });
  });
});
