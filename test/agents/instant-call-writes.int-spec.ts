// When an instant call reaches Postgres: once, with its attempt, when the attempt is quick; in progress first when
// the attempt runs long, or when Postgres has not answered a write lately (ToolCallsRepository.createInstant).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService, WRITE_RUNNING_CALL_AFTER_MS } from '../../libs/persistence/src/index.js';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({}, { worker: false });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

async function setup() {
  const path = `/hook/${Math.random().toString(36).slice(2)}`;
  const ctx = await agentWithTools(stack.api, [httpTool({ handler_url: handler.url(path) })]);
  handler.secrets = [ctx.app.webhook_secret];
  const call = () =>
    stack.api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: agentFacingName(ctx.app), dialog_id: 'd1', arguments: { customer_id: 'c-1' } },
    });
  return { ...ctx, path, call };
}

/**
 * Makes a call whose handler answers after `delayMs`, and reads the call's row from Postgres every few ms while the
 * handler holds it: the statuses seen then ('none' while there is no row), and the answer.
 */
async function callWatched(ctx: Awaited<ReturnType<typeof setup>>, delayMs: number) {
  handler.on(ctx.path, ({ event }) => ({
    status: 200,
    body: JSON.stringify({ echo: event.arguments }),
    headers: { 'content-type': 'application/json' },
    delayMs,
  }));
  const before = handler.at(ctx.path).length;
  let answered = false;
  const answer = ctx.call().finally(() => {
    answered = true;
  });
  while (handler.at(ctx.path).length === before) await new Promise((resolve) => setTimeout(resolve, 2));
  const eventId = handler.at(ctx.path)[before].event.event_id;
  const seen = new Set<string>();
  while (!answered) {
    const rows = await stack.api.sql('SELECT status FROM tool_calls WHERE event_id = $1', [eventId]);
    if (!answered) seen.add(rows[0]?.status ?? 'none');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { seen, response: await answer };
}

describe("an instant call's writes", () => {
  it('are one, with its attempt, when the attempt is quick: the row and the attempt read as the answer says', async () => {
    const ctx = await setup();
    expect((await ctx.call()).status).toBe(200); // Postgres answered a write just now

    const { seen, response } = await callWatched(ctx, WRITE_RUNNING_CALL_AFTER_MS / 2);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('succeeded');
    expect([...seen]).toEqual(['none']);

    const prisma = stack.api.app.get(PrismaService);
    const row = await prisma.toolCall.findUniqueOrThrow({
      where: { id: response.body.call_id },
      include: { attempts: true },
    });
    expect(row).toMatchObject({
      status: 'succeeded',
      executionMode: 'instant',
      agentId: ctx.agentId,
      arguments: { customer_id: 'c-1' },
      result: response.body.result,
      resultText: response.body.result_text,
      error: null,
      nextAttemptN: null,
      nextAttemptAt: null,
      attemptDeadline: null,
      bodyEnc: expect.any(String),
    });
    expect(row.firstAttemptAt).toBeInstanceOf(Date);
    expect(row.finishedAt).toBeInstanceOf(Date);
    expect(row.attempts).toEqual([
      expect.objectContaining({ round: 1, n: 1, outcome: 'success', httpStatus: 200, error: null }),
    ]);
    const detail = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${response.body.call_id}`, {
      token: ctx.dev,
    });
    expect(detail.body).toMatchObject({ status: 'succeeded', result: response.body.result });
    expect(detail.body.attempts).toHaveLength(1);
  });

  it('write the call in progress once its attempt has run a while, then record the attempt', async () => {
    const ctx = await setup();
    expect((await ctx.call()).status).toBe(200);

    const { seen, response } = await callWatched(ctx, WRITE_RUNNING_CALL_AFTER_MS * 4);
    expect(response.body.status).toBe('succeeded');
    expect(seen.has('in_progress')).toBe(true);
    expect([...seen].every((status) => status === 'none' || status === 'in_progress')).toBe(true);
    const [row] = await stack.api.sql(
      'SELECT c.status, count(a.id)::int AS attempts FROM tool_calls c JOIN tool_call_attempts a ON a.call_id = c.id ' +
        'WHERE c.id = $1 GROUP BY c.status',
      [response.body.call_id],
    );
    expect(row).toEqual({ status: 'succeeded', attempts: 1 });
  });

  it('write the call first when Postgres has not answered a write for a second', async () => {
    const ctx = await setup();
    expect((await ctx.call()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1200));

    const { seen, response } = await callWatched(ctx, WRITE_RUNNING_CALL_AFTER_MS / 2);
    expect(response.body.status).toBe('succeeded');
    expect([...seen]).toEqual(['in_progress']);
  });
});
