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
 * handler holds it: the statuses seen before the row was finished ('none' while there is no row; a read that
 * lands between the record and the answer sees it finished, and is left out), the answer, and how long it took.
 */
async function callWatched(ctx: Awaited<ReturnType<typeof setup>>, delayMs: number) {
  handler.on(ctx.path, ({ event }) => ({
    status: 200,
    body: JSON.stringify({ echo: event.arguments }),
    headers: { 'content-type': 'application/json' },
    delayMs,
  }));
  const before = handler.at(ctx.path).length;
  const started = performance.now();
  let answered = false;
  const answer = ctx.call().finally(() => {
    answered = true;
  });
  while (handler.at(ctx.path).length === before) await new Promise((resolve) => setTimeout(resolve, 2));
  const eventId = handler.at(ctx.path)[before].event.event_id;
  const seen = new Set<string>();
  while (!answered) {
    const rows = await stack.api.sql('SELECT status FROM tool_calls WHERE event_id = $1', [eventId]);
    const status: string = rows[0]?.status ?? 'none';
    if (!answered && (status === 'none' || status === 'in_progress')) seen.add(status);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const response = await answer;
  return { seen, response, ms: performance.now() - started };
}

/**
 * `callWatched` until a run shows something: at least one read while the handler held the call, within `withinMs`
 * of the call's start when given (a loaded machine can delay a quick call past WRITE_RUNNING_CALL_AFTER_MS).
 */
async function watchedUntilSeen(ctx: Awaited<ReturnType<typeof setup>>, delayMs: number, withinMs = Infinity) {
  for (let run = 0; run < 5; run++) {
    const watched = await callWatched(ctx, delayMs);
    expect(watched.response.status).toBe(200);
    expect(watched.response.body.status).toBe('succeeded');
    if (watched.seen.size > 0 && watched.ms < withinMs) return watched;
  }
  throw new Error('no run of five read the call while its handler held it');
}

describe("an instant call's writes", () => {
  it('are one, with its attempt, when the attempt is quick: the row and the attempt read as the answer says', async () => {
    const ctx = await setup();
    expect((await ctx.call()).status).toBe(200); // Postgres answered a write just now

    // The handler answers at once: the call ends well within WRITE_RUNNING_CALL_AFTER_MS.
    const { seen, response } = await watchedUntilSeen(ctx, 20, WRITE_RUNNING_CALL_AFTER_MS * 0.8);
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

    const { seen, response } = await watchedUntilSeen(ctx, WRITE_RUNNING_CALL_AFTER_MS * 4);
    expect(seen.has('in_progress')).toBe(true);
    const [row] = await stack.api.sql(
      'SELECT c.status, count(a.id)::int AS attempts FROM tool_calls c JOIN tool_call_attempts a ON a.call_id = c.id ' +
        'WHERE c.id = $1 GROUP BY c.status',
      [response.body.call_id],
    );
    expect(row).toEqual({ status: 'succeeded', attempts: 1 });
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

  it('write the call first when Postgres has not answered a write for a second', async () => {
    const ctx = await setup();
    expect((await ctx.call()).status).toBe(200);
    for (let run = 0; ; run++) {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const { seen, response } = await callWatched(ctx, 20);
      expect(response.body.status).toBe('succeeded');
      if (seen.size === 0 && run < 4) continue; // no read landed while the handler held it
      expect([...seen]).toEqual(['in_progress']);
      break;
    }
  });

  it('write the call first once a write failed for any reason: a table gone reaches the handler once at most', async () => {
    const ctx = await setup();
    handler.on(ctx.path, () => ({ status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } }));
    expect((await ctx.call()).status).toBe(200); // a write succeeded just now: the next call writes once, after
    const before = handler.at(ctx.path).length;
    await stack.api.sql('ALTER TABLE tool_calls RENAME TO tool_calls_away');
    try {
      // Its attempt was made before its write failed (when Postgres answered within the last second, as it did
      // unless this machine stalled): the one call a broken table lets through.
      expect((await ctx.call()).status).toBe(500);
      const after = handler.at(ctx.path).length;
      expect(after).toBeLessThanOrEqual(before + 1);
      for (let i = 0; i < 3; i++) expect((await ctx.call()).status).toBe(500);
      expect(handler.at(ctx.path).length).toBe(after);
    } finally {
      await stack.api.sql('ALTER TABLE tool_calls_away RENAME TO tool_calls');
    }
    expect((await ctx.call()).status).toBe(200);
  });
});
