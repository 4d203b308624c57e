// SIGTERM loses nothing: the API finishes the requests in flight, the worker its attempts in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/local-services.js';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { type AppProcess, type ProcessFixture, processFixture, startAppProcess } from './support/processes.js';
import { requester } from './support/test-api.js';
import { WebhookHandler } from './support/webhook-handler.js';

let fixture: ProcessFixture;
let handler: WebhookHandler;
let env: Record<string, string>;
let db: ProcessFixture['db'];
const processes: AppProcess[] = [];

beforeAll(async () => {
  fixture = await processFixture({ LOG_LEVEL: 'info' });
  ({ env, db } = fixture);
  handler = await new WebhookHandler().start();
});

afterAll(async () => {
  for (const p of processes) await p.kill('SIGKILL');
  await handler?.stop();
  await fixture?.stop();
});

async function startApi(overrides: Record<string, string> = {}) {
  const port = await freePort();
  const api = startAppProcess('api', { ...env, PORT: String(port), ...overrides });
  processes.push(api);
  await api.waitForOutput(/Toolgate API on/);
  return { api, request: requester(`http://127.0.0.1:${port}`) };
}

/** The agent calls its one tool. */
function callTool(request: ReturnType<typeof requester>, ctx: Awaited<ReturnType<typeof agentWithTools>>) {
  return request('POST', `${ctx.base}/tool-calls`, {
    token: ctx.agent,
    body: { tool: agentFacingName(ctx.app), dialog_id: 'd', arguments: { customer_id: 'c' } },
  });
}

describe('SIGTERM', () => {
  it('lets the API finish an instant call in flight before it exits', async () => {
    const { api, request } = await startApi();
    const ctx = await agentWithTools({ request }, [httpTool({ handler_url: handler.url('/slow-instant') })]);
    handler.secrets = [ctx.app.webhook_secret];
    handler.on('/slow-instant', () => ({
      status: 200,
      body: '{"late":true}',
      headers: { 'content-type': 'application/json' },
      delayMs: 1500,
    }));
    const pending = callTool(request, ctx);
    await eventually(() => expect(handler.at('/slow-instant').length).toBeGreaterThan(0), { intervalMs: 10 });
    const exited = new Promise<number | null>((resolve) => api.child.once('exit', (code) => resolve(code)));
    api.child.kill('SIGTERM');
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'succeeded', result: { late: true } });
    expect(await exited).toBe(0);
    expect(api.output()).toMatch(/draining requests in flight/);
  }, 30_000);

  it('lets the API record the first attempts of queued calls it made before it exits', async () => {
    const { api, request } = await startApi();
    const ctx = await agentWithTools({ request }, [
      httpTool({ handler_url: handler.url('/slow-first'), execution_mode: 'background', retry_window: '5m' }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    handler.on('/slow-first', () => ({ status: 200, body: 'ok', delayMs: 1500 }));
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const accepted = await callTool(request, ctx);
      expect(accepted.status).toBe(202);
      ids.push(accepted.body.call_id);
    }
    // No worker runs: the API itself is making these attempts.
    await eventually(() => expect(handler.at('/slow-first').length).toBeGreaterThanOrEqual(3), { intervalMs: 10 });
    const exited = new Promise<number | null>((resolve) => api.child.once('exit', (code) => resolve(code)));
    api.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const { rows } = await db.query('SELECT status FROM tool_calls WHERE id = ANY($1)', [ids]);
    expect(rows.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    const attempts = await db.query('SELECT count(*)::int AS n FROM tool_call_attempts WHERE call_id = ANY($1)', [ids]);
    expect(attempts.rows[0].n).toBe(3);
  }, 30_000);

  it('leaves a first attempt cut by SIGKILL to the reconciler: the worker sends it again after its deadline', async () => {
    const { api, request } = await startApi();
    const worker = startAppProcess('worker', { ...env, RECONCILE_INTERVAL_MS: '300' });
    processes.push(worker);
    await worker.waitForOutput(/Toolgate worker started/);
    const ctx = await agentWithTools({ request }, [
      httpTool({
        handler_url: handler.url('/killed-first'),
        execution_mode: 'background',
        retry_window: '5m',
        attempt_timeout_s: 10,
      }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    handler.on('/killed-first', ({ attempt }) => (attempt === 1 ? { status: 200, hang: true } : { status: 200 }));
    const accepted = await callTool(request, ctx);
    expect(accepted.status).toBe(202);
    await eventually(() => expect(handler.at('/killed-first')).toHaveLength(1), { intervalMs: 10 });
    await api.kill('SIGKILL');
    // In progress until its deadline (10 s timeout + 5 s margin), then queued by the reconciler and sent by the worker.
    await eventually(
      async () => {
        const { rows } = await db.query('SELECT status FROM tool_calls WHERE id = $1', [accepted.body.call_id]);
        expect(rows[0].status).toBe('succeeded');
      },
      { timeoutMs: 25_000, intervalMs: 200 },
    );
    expect(handler.at('/killed-first')).toHaveLength(2);
    const attempts = await db.query('SELECT n, outcome FROM tool_call_attempts WHERE call_id = $1', [
      accepted.body.call_id,
    ]);
    expect(attempts.rows).toEqual([{ n: 1, outcome: 'success' }]);
    await worker.kill('SIGTERM');
  }, 40_000);

  it('leaves an instant call cut by SIGKILL on record: after a restart its developer finds it, and it ends', async () => {
    const first = await startApi();
    const worker = startAppProcess('worker', { ...env, RECONCILE_INTERVAL_MS: '300' });
    processes.push(worker);
    await worker.waitForOutput(/Toolgate worker started/);
    const ctx = await agentWithTools({ request: first.request }, [
      httpTool({ handler_url: handler.url('/killed-instant'), attempt_timeout_s: 10 }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    handler.on('/killed-instant', ({ attempt }) => (attempt === 1 ? { status: 200, hang: true } : { status: 200 }));
    const answered = await callTool(first.request, ctx);
    expect(answered.status).toBe(200);
    const cut = callTool(first.request, ctx).catch((error: unknown) => error);
    await eventually(() => expect(handler.at('/killed-instant')).toHaveLength(2), { intervalMs: 10 });
    await first.api.kill('SIGKILL');
    expect(await cut).toBeInstanceOf(Error); // the agent never got an answer

    const { request } = await startApi();
    const history = await request('GET', `/v1/apps/${ctx.app.id}/tool-calls`, { token: ctx.dev });
    expect(history.status).toBe(200);
    // Every event the handler received is in the call history.
    const received = handler.at('/killed-instant').map((delivery) => delivery.event.event_id);
    expect(history.body.data.map((call: { event_id: string }) => call.event_id).sort()).toEqual(received.sort());
    const cutId = history.body.data.find((call: { status: string }) => call.status !== 'succeeded').id;
    // In progress until its deadline (10 s timeout + 5 s margin); then the reconciler ends it: instant never retries.
    await eventually(
      async () => {
        const detail = await request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${cutId}`, { token: ctx.dev });
        expect(detail.body).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(handler.at('/killed-instant')).toHaveLength(2);
    await worker.kill('SIGTERM');
  }, 60_000);

  it('lets the worker finish and record its attempts in flight before it exits', async () => {
    // Every attempt the worker's (no first attempt in the API).
    const { request } = await startApi({ API_DELIVERY_CONCURRENCY: '0' });
    const worker = startAppProcess('worker', env);
    processes.push(worker);
    await worker.waitForOutput(/Toolgate worker started/);
    const ctx = await agentWithTools({ request }, [
      httpTool({ handler_url: handler.url('/slow-queued'), execution_mode: 'background', retry_window: '5m' }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    handler.on('/slow-queued', () => ({ status: 200, body: 'ok', delayMs: 1500 }));
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const accepted = await callTool(request, ctx);
      ids.push(accepted.body.call_id);
    }
    await eventually(() => expect(handler.at('/slow-queued').length).toBeGreaterThanOrEqual(5), { intervalMs: 10 });
    const exited = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
    worker.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const { rows } = await db.query('SELECT status FROM tool_calls WHERE id = ANY($1)', [ids]);
    expect(rows.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    const attempts = await db.query('SELECT count(*)::int AS n FROM tool_call_attempts WHERE call_id = ANY($1)', [ids]);
    expect(attempts.rows[0].n).toBe(5);
  }, 30_000);
});
