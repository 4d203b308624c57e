// A wait call that outlives MCP_WAIT_DEADLINE_S is finished within MCP through the endpoint's own
// `toolgate-call-status` tool, with the official v1 and v2 SDK clients against the real endpoint and worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFacingPrefix, agentWithTools, httpTool } from '../support/fixtures.js';
import { type AgentMcpClient, callToolWith, withAgentMcp } from '../support/mcp-clients.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

const SCALE = 0.05; // 5m window: attempts at 0, 0.75 s, 3 s, 9 s, 15 s; the MCP deadline is 2 s
const STATUS_TOOL = 'toolgate-call-status';
/** callTool's options: a request timeout longer than any wait here. */
const LONG = { timeout: 30_000 };
let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ RETRY_TIME_SCALE: String(SCALE), MCP_WAIT_DEADLINE_S: '2' });
}, 60_000);
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

async function httpAgent(tools: Record<string, unknown>[], options: { projectId?: string; agentId?: string } = {}) {
  const ctx = await agentWithTools(stack.api, tools, options);
  handler.secrets = [ctx.app.webhook_secret];
  return { ...ctx, prefix: agentFacingPrefix(ctx.app) };
}

/** A wait call still running at the deadline: its id, read from the deadline answer. */
async function callPastDeadline(kind: 'v1' | 'v2', client: AgentMcpClient, name: string): Promise<string> {
  const answer = await callToolWith(kind, client, { name, arguments: { customer_id: 'x' } }, LONG);
  expect(answer.isError).toBeFalsy();
  const text = answer.content[0].text as string;
  const match = new RegExp(
    `^Still running after 2 s: call (call_[0-9a-f]+) .*call ${STATUS_TOOL} with \\{"call_id": "(call_[0-9a-f]+)"\\}`,
  ).exec(text);
  expect(match, text).not.toBeNull();
  expect(match![2]).toBe(match![1]);
  return match![1];
}

describe.each(['v1', 'v2'] as const)('with the %s SDK client', (kind) => {
  it(`finishes a wait call that outlived the deadline through ${STATUS_TOOL}, with the finished call's answer`, async () => {
    const path = `/status-${kind}/flaky`;
    handler.on(path, ({ attempt }) =>
      attempt < 3
        ? { status: 503 }
        : { status: 200, body: '{"done":true}', headers: { 'content-type': 'application/json' } },
    );
    const ctx = await httpAgent([
      httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' }),
    ]);
    await withAgentMcp(stack.api, kind, ctx.agentId, ctx.agent, async (client) => {
      const listed = (await client.listTools()).tools;
      expect(listed.map((t) => t.name)).toEqual([`${ctx.prefix}find_customer`, STATUS_TOOL]);
      expect(listed[1].inputSchema).toMatchObject({ type: 'object', required: ['call_id'] });

      const callId = await callPastDeadline(kind, client, `${ctx.prefix}find_customer`);
      let answer: Record<string, any> = {};
      for (let i = 0; i < 5; i += 1) {
        answer = await callToolWith(kind, client, { name: STATUS_TOOL, arguments: { call_id: callId } }, LONG);
        if (answer.structuredContent?.status === undefined) break;
        expect(answer.content[0].text).toMatch(
          new RegExp(`^Still running after 2 s more: call ${callId} \\(status (queued|in_progress)\\)`),
        );
      }
      expect(answer.isError).toBeFalsy();
      expect(answer.content).toEqual([{ type: 'text', text: '{"done":true}' }]);
      expect(answer.structuredContent).toEqual({ done: true });
      expect(handler.at(path).length).toBe(3);
      // a finished call answers at once, as often as asked
      const again = await client.callTool({ name: STATUS_TOOL, arguments: { call_id: callId } });
      expect(again.structuredContent).toEqual({ done: true });
    });
  }, 30_000);

  it(`answers a failed call through ${STATUS_TOOL} as the failed call's isError result`, async () => {
    const path = `/status-${kind}/broken`;
    handler.on(path, () => ({ status: 500 }));
    const ctx = await httpAgent([
      httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' }),
    ]);
    await withAgentMcp(stack.api, kind, ctx.agentId, ctx.agent, async (client) => {
      const callId = await callPastDeadline(kind, client, `${ctx.prefix}find_customer`);
      const pending = await callToolWith(kind, client, { name: STATUS_TOOL, arguments: { call_id: callId } }, LONG);
      expect(pending.structuredContent).toEqual({
        call_id: callId,
        status: expect.stringMatching(/^(queued|in_progress)$/),
      });
      await stack.api.request('POST', `${ctx.base}/tool-calls/${callId}/cancel`, { token: ctx.agent });
      const cancelled = await client.callTool({ name: STATUS_TOOL, arguments: { call_id: callId } });
      expect(cancelled.isError).toBe(true);
      expect(cancelled.content[0].text).toMatch(/^The call was cancelled/);
    });
  }, 30_000);

  it(`lists ${STATUS_TOOL} only to an agent with a wait tool, and finds only the agent's own calls`, async () => {
    const path = `/status-${kind}/owner`;
    handler.on(path, () => ({ status: 500 }));
    const owner = await httpAgent([
      httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' }),
    ]);
    const callId = await withAgentMcp(stack.api, kind, owner.agentId, owner.agent, (client) =>
      callPastDeadline(kind, client, `${owner.prefix}find_customer`),
    );
    const sameProject = await httpAgent([httpTool({ handler_url: handler.url(path) })], { projectId: owner.projectId });
    const sameAgentId = await httpAgent([httpTool({ handler_url: handler.url(path) })], { agentId: owner.agentId });
    for (const other of [sameProject, sameAgentId]) {
      await withAgentMcp(stack.api, kind, other.agentId, other.agent, async (client) => {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual([`${other.prefix}find_customer`]);
        const answer = await client.callTool({ name: STATUS_TOOL, arguments: { call_id: callId } });
        expect(answer.isError).toBe(true);
        expect(answer.content[0].text).toBe(`${STATUS_TOOL}: Tool call "${callId}" was not found.`);
      });
    }
    await withAgentMcp(stack.api, kind, owner.agentId, owner.agent, async (client) => {
      const missing = await client.callTool({ name: STATUS_TOOL, arguments: {} });
      expect(missing.isError).toBe(true);
      expect(missing.content[0].text).toMatch(/needs \{"call_id"/);
    });
    await stack.api.request('POST', `${owner.base}/tool-calls/${callId}/cancel`, { token: owner.agent });
  }, 30_000);
});
