import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { agentWithHandlerTool, agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

// docs/api.md "When what a call uses changes": each queued attempt first checks what the call calls.
const SCALE = 0.01; // 5m schedule: attempt 2 is due 150 ms after attempt 1
const HOLD_MS = 1200; // attempt 1 answers 503 this late: the change lands while it is out, before attempt 2
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

/** A `wait` call whose first attempt is out (answering 503 after HOLD_MS): the moment to change things. */
async function callInFlight(toolOverrides: Record<string, unknown> = {}, instance: Record<string, unknown> = {}) {
  const ctx = await agentWithHandlerTool(
    stack.api,
    handler,
    { execution_mode: 'wait', retry_window: '5m', ...toolOverrides },
    { instances: { find_customer: instance } },
  );
  handler.on(ctx.path, ({ attempt }) =>
    attempt === 1 ? { status: 503, body: 'busy', delayMs: HOLD_MS } : { status: 200, body: '{"ok":true}' },
  );
  const accepted = await ctx.call();
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const callId = accepted.body.call_id as string;
  await eventually(() => expect(handler.at(ctx.path)).toHaveLength(1));
  const instancePath = `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}/tool-instances/${ctx.instances[0].id}`;
  return { ...ctx, callId, instancePath, detail: () => ctx.detail(callId) };
}

type InFlight = Awaited<ReturnType<typeof callInFlight>>;

/** The call ends cancelled naming the change, after exactly one request and one attempt row. */
async function expectCancelled(ctx: InFlight, message: RegExp) {
  const finished = await stack.api.request('GET', `${ctx.base}/tool-calls/${ctx.callId}?wait=15`, { token: ctx.agent });
  expect(finished.body).toMatchObject({
    status: 'cancelled',
    error: { kind: 'cancelled', message: expect.stringMatching(message) },
  });
  const detail = await ctx.detail();
  expect(detail.body.attempts.map((a: { n: number; outcome: string }) => [a.n, a.outcome])).toEqual([
    [1, 'http_status'],
  ]);
  expect(handler.at(ctx.path)).toHaveLength(1);
}

describe('a call between attempts', () => {
  const dev = (ctx: InFlight) => ({ token: ctx.dev });

  it("is cancelled when the app's agent tools are switched off", async () => {
    const ctx = await callInFlight();
    const off = await stack.api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
      ...dev(ctx),
      body: { enabled: false, mode: 'constructor' },
    });
    expect(off.status).toBe(200);
    await expectCancelled(ctx, /agent tools were switched off/);
  });

  it("is cancelled when the app's mode is switched to mcp", async () => {
    const ctx = await callInFlight();
    const body = {
      enabled: true,
      mode: 'mcp',
      mcp: { url: 'https://mcp.example.com/mcp', auth_header_value_action: 'clear' },
    };
    expect((await stack.api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, { ...dev(ctx), body })).status).toBe(
      200,
    );
    await expectCancelled(ctx, /mode was switched to mcp/);
  });

  it('is cancelled when the tool is deleted, and its replay is refused saying why', async () => {
    const ctx = await callInFlight();
    const deleted = await stack.api.request(
      'DELETE',
      `/v1/apps/${ctx.app.id}/tools/${ctx.tools[0].id}?confirm=true`,
      dev(ctx),
    );
    expect(deleted.status).toBe(204);
    await expectCancelled(ctx, /the tool "find_customer" was deleted/);
    const replay = await stack.api.request('POST', `/v1/apps/${ctx.app.id}/tool-calls/${ctx.callId}/replay`, dev(ctx));
    expect(replay.status).toBe(409);
    expect(replay.body.detail).toMatch(/cannot be replayed: the tool "find_customer" was deleted/);
  });

  it('is cancelled when the tool instance is deleted', async () => {
    const ctx = await callInFlight();
    expect((await stack.api.request('DELETE', ctx.instancePath, { token: ctx.project })).status).toBe(204);
    await expectCancelled(ctx, /the tool instance was deleted/);
  });

  it('is cancelled when the tool instance is disabled', async () => {
    const ctx = await callInFlight();
    expect(
      (await stack.api.request('PATCH', ctx.instancePath, { token: ctx.project, body: { enabled: false } })).status,
    ).toBe(200);
    await expectCancelled(ctx, /the tool instance was disabled/);
  });

  it('is cancelled when the app is uninstalled from the project', async () => {
    const ctx = await callInFlight();
    const path = `/v1/projects/${ctx.projectId}/installations/${ctx.installationId}?confirm=true`;
    expect((await stack.api.request('DELETE', path, { token: ctx.project })).status).toBe(204);
    await expectCancelled(ctx, /the app was uninstalled from the project/);
  });

  it('is cancelled when the private data it requires is cleared', async () => {
    const ctx = await callInFlight(
      { configurable: true },
      { private_data_required: true, private_data: { token: 't' } },
    );
    const cleared = await stack.api.request('PATCH', ctx.instancePath, {
      token: ctx.project,
      body: { private_data_action: 'clear' },
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    await expectCancelled(ctx, /private data was cleared/);
  });

  it('goes with its app when the app is deleted: no further attempt, no row', async () => {
    const ctx = await callInFlight();
    expect((await stack.api.request('DELETE', `/v1/apps/${ctx.app.id}?confirm=true`, dev(ctx))).status).toBe(204);
    await eventually(async () => expect((await ctx.read(ctx.callId)).status).toBe(404));
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS + 500)); // past attempt 1's answer and attempt 2's slot
    expect(handler.at(ctx.path)).toHaveLength(1);
    expect(await stack.api.sql('SELECT id FROM tool_calls WHERE id = $1', [ctx.callId])).toEqual([]);
  });

  it('takes a fixed handler_url and a new attempt_timeout_s at its next attempt, with the same body and event_id', async () => {
    const fixed = `/hook/fixed-${Math.random().toString(36).slice(2)}`;
    const ctx = await callInFlight();
    handler.on(fixed, () => ({ status: 200, body: '{"found":true}', headers: { 'content-type': 'application/json' } }));
    const patched = await stack.api.request('PATCH', `/v1/apps/${ctx.app.id}/tools/${ctx.tools[0].id}`, {
      ...dev(ctx),
      body: { handler_url: handler.url(fixed), attempt_timeout_s: 30 },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const finished = await stack.api.request('GET', `${ctx.base}/tool-calls/${ctx.callId}?wait=15`, {
      token: ctx.agent,
    });
    expect(finished.body).toMatchObject({ status: 'succeeded', result: { found: true } });
    const [broken] = handler.at(ctx.path);
    const [delivered] = handler.at(fixed);
    expect(handler.at(ctx.path)).toHaveLength(1);
    expect(delivered.event.event_id).toBe(broken.event.event_id);
    expect(delivered.rawBody.equals(broken.rawBody)).toBe(true);
    const detail = await ctx.detail();
    expect(detail.body.attempts.map((a: { n: number; outcome: string }) => [a.n, a.outcome])).toEqual([
      [1, 'http_status'],
      [2, 'success'],
    ]);
    const [row] = await stack.api.sql('SELECT handler_url, attempt_timeout_s FROM tool_calls WHERE id = $1', [
      ctx.callId,
    ]);
    expect(row).toEqual({ handler_url: handler.url(fixed), attempt_timeout_s: 30 });
  });
});

describe('a switched-off app', () => {
  it('refuses new tool instances and configurator launches (409)', async () => {
    const ctx = await agentWithTools(stack.api, [httpTool({ configurable: true, allow_multiple: true })]);
    const off = await stack.api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
      token: ctx.dev,
      body: { enabled: false, mode: 'constructor' },
    });
    expect(off.status).toBe(200);
    const agentPath = `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}`;
    const instance = await stack.api.request('POST', `${agentPath}/tool-instances`, {
      token: ctx.project,
      body: { installation_id: ctx.installationId, tool_name: 'find_customer' },
    });
    expect(instance.status).toBe(409);
    expect(instance.body.detail).toMatch(/switched its agent tools off/);
    const launch = await stack.api.request('POST', `${agentPath}/configurator-launches`, {
      token: ctx.project,
      body: { installation_id: ctx.installationId, tool_name: 'find_customer', theme: 'dark', language: 'en' },
    });
    expect(launch.status).toBe(409);
    expect(launch.body.detail).toMatch(/switched its agent tools off/);
  });
});

describe('the reconciler', () => {
  it('re-queues an overdue call of a switched-off app, and its attempt cancels it without a request', async () => {
    const ctx = await agentWithHandlerTool(stack.api, handler, { execution_mode: 'wait', retry_window: '5m' });
    const accepted = await ctx.call();
    const callId = accepted.body.call_id as string;
    const done = await ctx.read(callId, 15);
    expect(done.body.status).toBe('succeeded');
    await stack.api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
      token: ctx.dev,
      body: { enabled: false, mode: 'constructor' },
    });
    // Attempt 2 overdue with no job in Redis (as after a lost job): only the reconciler can queue it.
    await stack.api.sql(
      `UPDATE tool_calls SET status = 'queued', next_attempt_n = 2, next_attempt_at = now() - interval '10 seconds',
         finished_at = NULL WHERE id = $1`,
      [callId],
    );
    await eventually(async () => expect((await ctx.read(callId)).body.status).toBe('cancelled'));
    const detail = await ctx.detail(callId);
    expect(detail.body.error).toMatchObject({
      kind: 'cancelled',
      message: expect.stringMatching(/agent tools were switched off/),
    });
    expect(detail.body.attempts.map((a: { n: number }) => a.n)).toEqual([1]);
    expect(handler.at(ctx.path)).toHaveLength(1);
  });
});
