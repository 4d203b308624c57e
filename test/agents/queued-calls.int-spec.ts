import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { agentWithHandlerTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { agentToken } from '../support/tokens.js';
import { WebhookHandler } from '../support/webhook-handler.js';

const SCALE = 0.01; // 5m schedule: 0, 150, 600, 1800, 3000 ms
const TOLERANCE_MS = 250;
let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ RETRY_TIME_SCALE: String(SCALE), RECONCILE_INTERVAL_MS: '500' });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

/** The file's usual tool: a `wait` tool with a 5m retry window, answered by `handler`. */
const setup = (toolOverrides: Record<string, unknown> = {}, options: Parameters<typeof agentWithHandlerTool>[3] = {}) =>
  agentWithHandlerTool(stack.api, handler, { execution_mode: 'wait', retry_window: '5m', ...toolOverrides }, options);

/**
 * Each handler arrival's offset from the moment attempt 1 went out (its recorded start, the schedule's anchor),
 * not from when attempt 1 happened to arrive: a slow first arrival under load must not make a later one look early.
 */
async function arrivalOffsets(ctx: Awaited<ReturnType<typeof setup>>, callId: string): Promise<number[]> {
  const detail = await ctx.detail(callId);
  const firstSentAt = Date.parse(detail.body.attempts[0].started_at);
  return handler.at(ctx.path).map((a) => a.receivedAt - firstSentAt);
}

function expectOffsets(actual: number[], expected: number[]) {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((offset, i) => {
    expect(offset, `attempt ${i + 1} at ${offset} ms, due at ${expected[i]} ms`).toBeGreaterThanOrEqual(
      expected[i] - 2,
    );
    expect(offset, `attempt ${i + 1} at ${offset} ms, due at ${expected[i]} ms`).toBeLessThanOrEqual(
      expected[i] + TOLERANCE_MS,
    );
  });
}

describe('wait calls', () => {
  it('are accepted with 202, retried on the schedule with identical body bytes, and resume on success', async () => {
    const ctx = await setup(
      { configurable: true },
      { instances: { find_customer: { configuration: { store: 's1' }, private_data: { token: 'tok-1' } } } },
    );
    handler.on(ctx.path, ({ attempt }) =>
      attempt < 3
        ? { status: 503, body: 'busy' }
        : { status: 200, body: '{"found":true}', headers: { 'content-type': 'application/json' } },
    );
    const accepted = await ctx.call();
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ call_id: expect.stringMatching(/^call_/), status: 'queued' });

    const finished = await ctx.read(accepted.body.call_id, 15);
    expect(finished.body).toMatchObject({
      call_id: accepted.body.call_id,
      status: 'succeeded',
      result: { found: true },
      result_text: '{"found":true}',
    });

    const attempts = handler.at(ctx.path);
    expectOffsets(await arrivalOffsets(ctx, accepted.body.call_id), [0, 150, 600]);
    expect(new Set(attempts.map((a) => a.rawBody.toString('base64'))).size).toBe(1);
    expect(new Set(attempts.map((a) => a.headers['x-webhook-event-id'])).size).toBe(1);
    expect(attempts[0].event).toMatchObject({ configuration: { store: 's1' }, private_data: { token: 'tok-1' } });

    const detail = await ctx.detail(accepted.body.call_id);
    expect(detail.body).toMatchObject({
      status: 'succeeded',
      event_id: attempts[0].event.event_id,
      tool_name: 'find_customer',
    });
    expect(detail.body.attempts.map((a: { n: number; outcome: string }) => [a.n, a.outcome])).toEqual([
      [1, 'http_status'],
      [2, 'http_status'],
      [3, 'success'],
    ]);
    expect(detail.text).not.toContain('tok-1');
  });
});

describe('background calls', () => {
  it('make all 5 attempts of the 5m window at their offsets, then fail', async () => {
    const ctx = await setup({ execution_mode: 'background' });
    handler.on(ctx.path, () => ({ status: 500, body: 'nope' }));
    const accepted = await ctx.call();
    expect(accepted.status).toBe(202);
    const finished = await ctx.read(accepted.body.call_id, 15);
    expect(finished.body).toMatchObject({ status: 'failed', error: { kind: 'http_status', http_status: 500 } });
    expectOffsets(await arrivalOffsets(ctx, accepted.body.call_id), [0, 150, 600, 1800, 3000]);
    const detail = await ctx.detail(accepted.body.call_id);
    expect(detail.body.attempts).toHaveLength(5);
    expect(
      detail.body.attempts.every(
        (a: { outcome: string; response_excerpt: string }) =>
          a.outcome === 'http_status' && a.response_excerpt === 'nope',
      ),
    ).toBe(true);
  });
});

describe('attempt outcomes', () => {
  it('stop at once on 410 Gone', async () => {
    const ctx = await setup();
    handler.on(ctx.path, () => ({
      status: 410,
      body: '{"error":"customer c1 was deleted"}',
      headers: { 'content-type': 'application/json' },
    }));
    const accepted = await ctx.call();
    const finished = await ctx.read(accepted.body.call_id, 15);
    expect(finished.body).toMatchObject({
      status: 'failed',
      error: {
        kind: 'gone',
        http_status: 410,
        message: 'answered 410 Gone: no further attempts: customer c1 was deleted',
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(handler.at(ctx.path)).toHaveLength(1);
  });

  it('move to the first slot not earlier than Retry-After (scaled)', async () => {
    const ctx = await setup();
    // Retry-After 60 s × 0.01 = 600 ms: slot 2 (150 ms) is skipped, slot 3 (600 ms) is taken.
    handler.on(ctx.path, ({ attempt }) =>
      attempt === 1 ? { status: 429, headers: { 'retry-after': '60' } } : { status: 200, body: 'ok' },
    );
    const accepted = await ctx.call();
    await ctx.read(accepted.body.call_id, 15);
    expectOffsets(await arrivalOffsets(ctx, accepted.body.call_id), [0, 600]);
    const detail = await ctx.detail(accepted.body.call_id);
    expect(detail.body.attempts.map((a: { n: number }) => a.n)).toEqual([1, 3]);
  });
});

describe('cancel', () => {
  it('stops further attempts; a finished call cannot be cancelled (409)', async () => {
    const ctx = await setup();
    handler.on(ctx.path, () => ({ status: 500 }));
    const accepted = await ctx.call();
    await eventually(() => expect(handler.at(ctx.path)).toHaveLength(1));
    const cancelled = await stack.api.request('POST', `${ctx.base}/tool-calls/${accepted.body.call_id}/cancel`, {
      token: ctx.agent,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      call_id: accepted.body.call_id,
      status: 'cancelled',
      error: { kind: 'cancelled' },
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(handler.at(ctx.path)).toHaveLength(1);
    expect(
      (await stack.api.request('POST', `${ctx.base}/tool-calls/${accepted.body.call_id}/cancel`, { token: ctx.agent }))
        .status,
    ).toBe(409);
  });
});

describe('long-poll', () => {
  it('answers the moment the call finishes, and refuses wait over 60', async () => {
    const ctx = await setup();
    handler.on(ctx.path, ({ attempt }) => (attempt < 4 ? { status: 500 } : { status: 200, body: 'done' }));
    const accepted = await ctx.call();
    const started = Date.now();
    const finished = await ctx.read(accepted.body.call_id, 30);
    const elapsed = Date.now() - started;
    expect(finished.body.status).toBe('succeeded');
    const lastAttempt = handler.at(ctx.path)[3].receivedAt;
    expect(Date.now() - lastAttempt).toBeLessThan(500);
    expect(elapsed).toBeGreaterThan(1500);
    expect((await ctx.read(accepted.body.call_id, 61)).status).toBe(422);
    const unfinished = await ctx.call();
    handler.on(ctx.path, () => ({ status: 500 }));
    const t0 = Date.now();
    const short = await ctx.read(unfinished.body.call_id, 1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(['queued', 'in_progress', 'succeeded']).toContain(short.body.status);
  });

  it("answers 404 for another agent's call", async () => {
    const ctx = await setup();
    const accepted = await ctx.call();
    const other = await agentToken(ctx.projectId, 'other_agent');
    expect(
      (await stack.api.request('GET', `/v1/agents/other_agent/tool-calls/${accepted.body.call_id}`, { token: other }))
        .status,
    ).toBe(404);
    expect(
      (
        await stack.api.request('POST', `/v1/agents/other_agent/tool-calls/${accepted.body.call_id}/cancel`, {
          token: other,
        })
      ).status,
    ).toBe(404);
    const otherProject = await agentToken('other_project', ctx.agentId);
    expect(
      (await stack.api.request('GET', `${ctx.base}/tool-calls/${accepted.body.call_id}`, { token: otherProject }))
        .status,
    ).toBe(404);
  });
});

describe('Idempotency-Key', () => {
  it('answers a repeat with the first status and body and delivers nothing again; another body is 409', async () => {
    const ctx = await setup({ execution_mode: 'instant', retry_window: null });
    const key = `key-${Math.random()}`;
    const first = await ctx.call({}, { 'idempotency-key': key });
    const second = await ctx.call({}, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(handler.at(ctx.path)).toHaveLength(1);
    const different = await ctx.call({ arguments: { customer_id: 'other' } }, { 'idempotency-key': key });
    expect(different.status).toBe(409);
    expect((await ctx.call({}, { 'idempotency-key': 'bad key with spaces' })).status).toBe(422);

    const queued = await setup();
    const q1 = await queued.call({}, { 'idempotency-key': key });
    const q2 = await queued.call({}, { 'idempotency-key': key });
    expect([q1.status, q2.status]).toEqual([202, 202]);
    expect(q2.body.call_id).toBe(q1.body.call_id);
    await queued.read(q1.body.call_id, 15);
    expect(handler.at(queued.path)).toHaveLength(1);
  });
});

describe('replay', () => {
  it('delivers a finished call again with the same event_id and body bytes', async () => {
    const ctx = await setup();
    handler.on(ctx.path, () => ({ status: 200, body: 'ok' }));
    const accepted = await ctx.call();
    await ctx.read(accepted.body.call_id, 15);
    const replay = await stack.api.request(
      'POST',
      `/v1/apps/${ctx.app.id}/tool-calls/${accepted.body.call_id}/replay`,
      { token: ctx.dev },
    );
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ status: 'queued', round: 2 });
    await eventually(() => expect(handler.at(ctx.path)).toHaveLength(2));
    const [first, second] = handler.at(ctx.path);
    expect(second.rawBody.equals(first.rawBody)).toBe(true);
    expect(second.event.event_id).toBe(first.event.event_id);
    await eventually(async () => expect((await ctx.detail(accepted.body.call_id)).body.status).toBe('succeeded'));
    const detail = await ctx.detail(accepted.body.call_id);
    expect(detail.body.attempts.map((a: { round: number; n: number }) => [a.round, a.n])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    const unfinished = await setup();
    handler.on(unfinished.path, () => ({ status: 500 }));
    const pending = await unfinished.call();
    expect(
      (
        await stack.api.request('POST', `/v1/apps/${unfinished.app.id}/tool-calls/${pending.body.call_id}/replay`, {
          token: unfinished.dev,
        })
      ).status,
    ).toBe(409);
  });
});

describe('secret rotation', () => {
  it('signs with both secrets for 24 hours; each signature verifies on its own', async () => {
    const ctx = await setup({ execution_mode: 'instant', retry_window: null });
    const oldSecret = ctx.app.webhook_secret;
    const rotated = await stack.api.request('POST', `/v1/apps/${ctx.app.id}/webhook-secret/rotate`, { token: ctx.dev });
    handler.secrets = [rotated.body.webhook_secret, oldSecret];
    expect((await ctx.call()).body.status).toBe('succeeded');
    const [webhook] = handler.at(ctx.path);
    expect((webhook.headers['x-webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(webhook.verifiedWith).toEqual([0, 1]);
    // 24 hours later (moved back in the database; a PATCH drops the cached app row, as any change does).
    await stack.api.sql(
      `UPDATE apps
         SET retired_webhook_secrets = jsonb_set(retired_webhook_secrets, '{0,valid_until}', '"2000-01-01T00:00:00.000Z"')
       WHERE id = $1`,
      [ctx.app.id],
    );
    await stack.api.request('PATCH', `/v1/apps/${ctx.app.id}`, { token: ctx.dev, body: { display_name: 'Shop' } });
    handler.secrets = [rotated.body.webhook_secret];
    await ctx.call();
    expect((handler.at(ctx.path)[1].headers['x-webhook-signature'] as string).split(' ')).toHaveLength(1);
  });
});

describe('refused calls (409)', () => {
  it('refuse a disabled app, a disabled instance, a tool of the other mode and missing private data; nothing is sent', async () => {
    const ctx = await setup({ configurable: true }, { instances: { find_customer: { private_data_required: true } } });
    const needs = await ctx.call();
    expect(needs.status).toBe(409);
    expect(needs.body.detail).toMatch(/private data/);
    const instancePath = `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}/tool-instances/${ctx.instances[0].id}`;
    await stack.api.request('PATCH', instancePath, {
      token: ctx.project,
      body: { private_data_action: 'replace', private_data: { k: 'v' } },
    });
    expect((await ctx.call()).status).toBe(202);

    await stack.api.request('PATCH', instancePath, { token: ctx.project, body: { enabled: false } });
    expect((await ctx.call()).status).toBe(409);
    expect((await stack.api.request('GET', `${ctx.base}/tools`, { token: ctx.agent })).body.data).toEqual([]);
    await stack.api.request('PATCH', instancePath, { token: ctx.project, body: { enabled: true } });

    await stack.api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
      token: ctx.dev,
      body: { enabled: false, mode: 'constructor' },
    });
    const disabled = await ctx.call();
    expect(disabled.status).toBe(409);
    expect(disabled.body.detail).toMatch(/switched its agent tools off/);

    await stack.api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
      token: ctx.dev,
      body: {
        enabled: true,
        mode: 'mcp',
        mcp: { url: 'https://mcp.example.com/mcp', auth_header_value_action: 'clear' },
      },
    });
    expect((await ctx.call()).status).toBe(409);
    expect((await stack.api.request('GET', `${ctx.base}/tools`, { token: ctx.agent })).body.data).toEqual([]);

    await stack.api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
      token: ctx.dev,
      body: { enabled: true, mode: 'constructor' },
    });
    expect((await ctx.call()).status).toBe(202);
  });
});

describe('developer call history', () => {
  it('lists the app calls newest first, with filters', async () => {
    const ctx = await setup({ execution_mode: 'instant', retry_window: null });
    handler.on(ctx.path, ({ event }) =>
      event.arguments.customer_id === 'bad' ? { status: 500 } : { status: 200, body: 'ok' },
    );
    const a = await ctx.call({ arguments: { customer_id: 'good' } });
    const b = await ctx.call({ arguments: { customer_id: 'bad' } });
    const list = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls`, { token: ctx.dev });
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([b.body.call_id, a.body.call_id]);
    const failed = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls?status=failed`, {
      token: ctx.dev,
    });
    expect(failed.body.data.map((c: { id: string }) => c.id)).toEqual([b.body.call_id]);
    const byTool = await stack.api.request(
      'GET',
      `/v1/apps/${ctx.app.id}/tool-calls?tool_name=find_customer&agent_id=${ctx.agentId}&limit=1`,
      { token: ctx.dev },
    );
    expect(byTool.body.data).toHaveLength(1);
    expect(byTool.body.next_cursor).not.toBeNull();
    expect(
      (await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls?tool_name=other`, { token: ctx.dev })).body
        .data,
    ).toEqual([]);
    const stranger = await import('../support/tokens.js').then((t) => t.developerToken('dev_stranger'));
    expect((await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls`, { token: stranger })).status).toBe(404);
    expect(
      (await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${a.body.call_id}`, { token: stranger }))
        .status,
    ).toBe(404);
    expect(
      (
        await stack.api.request('POST', `/v1/apps/${ctx.app.id}/tool-calls/${a.body.call_id}/replay`, {
          token: stranger,
        })
      ).status,
    ).toBe(404);
  });
});

describe('the reconciler', () => {
  it('ends an instant call the API never finished as failed, and never retries it', async () => {
    const ctx = await setup({ execution_mode: 'instant', retry_window: null });
    const done = await ctx.call();
    await stack.api.sql(
      `UPDATE tool_calls SET status = 'in_progress', attempt_deadline = now() - interval '1 second',
         finished_at = NULL, result = NULL WHERE id = $1`,
      [done.body.call_id],
    );
    await eventually(async () => expect((await ctx.detail(done.body.call_id)).body.status).toBe('failed'), {
      timeoutMs: 5000,
    });
    const detail = await ctx.detail(done.body.call_id);
    expect(detail.body.error).toMatchObject({ kind: 'timeout', message: expect.stringMatching(/not retried/) });
    expect(handler.at(ctx.path)).toHaveLength(1);
  });
});
