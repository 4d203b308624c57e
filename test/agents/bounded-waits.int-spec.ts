// Waiting is bounded: long-polls and MCP `wait` calls wake on the call's event (not a Postgres read
// every second), and each agent of a project has at most AGENT_MAX_CONCURRENT_WAITS open per replica.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolCallLedger } from '../../libs/persistence/src/index.js';
import { eventually } from '../support/eventually.js';
import { agentFacingName, agentWithTools, giveAppToAgent, httpTool } from '../support/fixtures.js';
import { connectAgentMcp } from '../support/mcp-clients.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  // No worker until a test starts one, and no first attempt in the API: accepted calls stay queued, so waits run
  // to their deadline.
  stack = await startTestStack(
    {
      AGENT_MAX_CONCURRENT_WAITS: '2',
      RETRY_TIME_SCALE: '0.01',
      MCP_WAIT_DEADLINE_S: '5',
      API_DELIVERY_CONCURRENCY: '0',
    },
    { worker: false },
  );
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

async function waitAgent(path: string) {
  const ctx = await agentWithTools(stack.api, [
    httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' }),
  ]);
  handler.secrets = [ctx.app.webhook_secret];
  const toolName = agentFacingName(ctx.app);
  const accept = async (who: { base: string; agent: string } = ctx) => {
    const accepted = await stack.api.request('POST', `${who.base}/tool-calls`, {
      token: who.agent,
      body: { tool: toolName, dialog_id: 'd', arguments: { customer_id: 'c' } },
    });
    expect(accepted.status).toBe(202);
    return accepted.body.call_id as string;
  };
  return { ...ctx, toolName, accept };
}

/** A long-poll that the test can walk away from, like a client that disconnects. */
function longPoll(who: { base: string; agent: string }, callId: string, waitS: number) {
  const abort = new AbortController();
  const response = fetch(`${stack.api.baseUrl}${who.base}/tool-calls/${callId}?wait=${waitS}`, {
    headers: { authorization: `Bearer ${who.agent}` },
    signal: abort.signal,
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as any }));
  response.catch(() => undefined);
  return { response, abort: () => abort.abort() };
}

describe('a long-poll', () => {
  it("wakes on the call's event, reading the call twice, not every second", async () => {
    const path = '/waits/event';
    const ctx = await waitAgent(path);
    const callId = await ctx.accept();
    const reads = vi.spyOn(stack.api.app.get(ToolCallLedger, { strict: false }), 'getById');
    try {
      const started = Date.now();
      const idle = await longPoll(ctx, callId, 4).response;
      expect(idle.body.status).toBe('queued');
      expect(Date.now() - started).toBeGreaterThanOrEqual(3900);
      expect(reads.mock.calls.length).toBeLessThanOrEqual(2);

      reads.mockClear();
      const pending = longPoll(ctx, callId, 30).response;
      await new Promise((resolve) => setTimeout(resolve, 300));
      await stack.startWorker();
      const finished = await pending;
      const answeredAt = Date.now();
      expect(finished.body.status).toBe('succeeded');
      expect(answeredAt - handler.at(path)[0].receivedAt).toBeLessThan(1000);
      expect(reads.mock.calls.length).toBeLessThanOrEqual(2);
    } finally {
      reads.mockRestore();
      await stack.stopWorker();
    }
  }, 30_000);
});

describe('the waits of one agent', () => {
  it('are capped per agent: one more is 429 with Retry-After over REST and MCP; a client leaving frees a slot', async () => {
    const ctx = await waitAgent('/waits/cap');
    const calls = [await ctx.accept(), await ctx.accept()];
    const open = calls.map((id) => longPoll(ctx, id, 20));
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const refused = await longPoll(ctx, calls[0], 2).response;
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.body.detail).toMatch(
        /already waits on 2 calls at once.*retry in 5 s, or read the call without wait/,
      );
      // Reading without wait is never refused.
      expect(
        (await stack.api.request('GET', `${ctx.base}/tool-calls/${calls[0]}`, { token: ctx.agent })).body.status,
      ).toBe('queued');

      // The agent of the same id in another project has slots of its own.
      const twin = await giveAppToAgent(stack.api, ctx.app.id, ['find_customer'], { agentId: ctx.agentId });
      const twinCall = await ctx.accept(twin);
      expect((await longPoll(twin, twinCall, 1).response).status).toBe(200);

      // An MCP `wait` call takes a slot too: refused before anything is stored or sent.
      const [{ n: before }] = await stack.api.sql('SELECT count(*)::int AS n FROM tool_calls');
      const client = await connectAgentMcp(stack.api, 'v2', ctx.agentId, ctx.agent);
      try {
        const result = await client.callTool({ name: ctx.toolName, arguments: { customer_id: 'c' } });
        expect(result.isError).toBe(true);
        expect((result.content as { text: string }[])[0].text).toMatch(
          /refused, nothing was sent: This agent already waits on 2 calls at once/,
        );
      } finally {
        await client.close();
      }
      const [{ n: after }] = await stack.api.sql('SELECT count(*)::int AS n FROM tool_calls');
      expect(after).toBe(before);

      open[0].abort();
      await eventually(async () => expect((await longPoll(ctx, calls[0], 0.1).response).status).toBe(200), {
        timeoutMs: 3000,
        intervalMs: 50,
      });
    } finally {
      for (const poll of open) poll.abort();
    }
  }, 30_000);
});
