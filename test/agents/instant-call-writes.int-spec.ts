// An instant call is on record before its webhook leaves: stored in progress, sent, recorded, answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '../../libs/persistence/src/index.js';
import { eventually } from '../support/eventually.js';
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

describe("an instant call's writes", () => {
  it('put the call on record in progress before its webhook leaves, then record the attempt with its end', async () => {
    const ctx = await setup();
    handler.on(ctx.path, ({ event }) => ({
      status: 200,
      body: JSON.stringify({ echo: event.arguments }),
      headers: { 'content-type': 'application/json' },
      // Long enough for the look below to land while the handler holds the webhook, on a loaded machine too.
      delayMs: 1500,
    }));
    const answer = ctx.call();
    await eventually(() => expect(handler.at(ctx.path)).toHaveLength(1), { intervalMs: 2 });
    const eventId = handler.at(ctx.path)[0].event.event_id;
    const [held] = await stack.api.sql(
      'SELECT c.status, c.attempt_deadline, (SELECT count(*)::int FROM tool_call_attempts a WHERE a.call_id = c.id) ' +
        'AS attempts FROM tool_calls c WHERE c.event_id = $1',
      [eventId],
    );
    expect(held).toMatchObject({ status: 'in_progress', attempts: 0 });
    expect(held.attempt_deadline).toBeInstanceOf(Date);

    const response = await answer;
    expect(response.status).toBe(200);
    const prisma = stack.api.app.get(PrismaService);
    const row = await prisma.toolCall.findUniqueOrThrow({
      where: { id: response.body.call_id },
      include: { attempts: true },
    });
    expect(row).toMatchObject({
      eventId,
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

  it('leave nothing of a call whose app is deleted during its attempt, and answer without a 500', async () => {
    const ctx = await setup();
    expect((await ctx.call()).status).toBe(200);
    const before = handler.at(ctx.path).length;
    handler.on(ctx.path, () => ({ status: 200, body: '{"ok":true}', delayMs: 40 }));
    const answer = ctx.call();
    while (handler.at(ctx.path).length === before) await new Promise((resolve) => setTimeout(resolve, 2));
    const deleted = await stack.api.request('DELETE', `/v1/apps/${ctx.app.id}?confirm=true`, { token: ctx.dev });
    expect(deleted.status).toBe(204);

    const response = await answer;
    expect(response.status).toBeLessThan(500);
    expect(await stack.api.sql('SELECT id FROM tool_calls WHERE app_id = $1', [ctx.app.id])).toEqual([]);
  });

  it('send nothing when the call cannot be stored: a table gone never reaches the handler', async () => {
    const ctx = await setup();
    handler.on(ctx.path, () => ({ status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } }));
    expect((await ctx.call()).status).toBe(200);
    const before = handler.at(ctx.path).length;
    await stack.api.sql('ALTER TABLE tool_calls RENAME TO tool_calls_away');
    try {
      for (let i = 0; i < 3; i++) expect((await ctx.call()).status).toBe(500);
      expect(handler.at(ctx.path)).toHaveLength(before);
    } finally {
      await stack.api.sql('ALTER TABLE tool_calls_away RENAME TO tool_calls');
    }
    expect((await ctx.call()).status).toBe(200);
  });
});
