// Idempotency-Key over time: a reservation whose request crashed is freed after a short lease,
// and a first answer too large to keep is replayed as where to read the call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/local-services.js';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { type AppProcess, type ProcessFixture, processFixture, startAppProcess } from './support/processes.js';
import { type TestApi, requester, startTestApi } from './support/test-api.js';
import { WebhookHandler } from './support/webhook-handler.js';

const LEASE_S = 4;
let fixture: ProcessFixture;
let handler: WebhookHandler;
let api: TestApi;
const processes: AppProcess[] = [];

beforeAll(async () => {
  fixture = await processFixture({ IDEMPOTENCY_LEASE_S: String(LEASE_S) });
  handler = await new WebhookHandler().start();
  // An in-process replica over the same database, alive while the process replica is killed.
  api = await startTestApi({ REDIS_URL: fixture.redisUrl, IDEMPOTENCY_LEASE_S: String(LEASE_S) }, fixture.database);
});
afterAll(async () => {
  for (const p of processes) await p.kill('SIGKILL');
  await api?.close();
  await handler?.stop();
  await fixture?.stop();
});

async function instantAgent(path: string) {
  const ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url(path) })]);
  handler.secrets = [ctx.app.webhook_secret];
  const body = {
    tool: agentFacingName(ctx.app),
    dialog_id: 'd1',
    arguments: { customer_id: 'c1' },
  };
  return { ...ctx, body };
}

describe('Idempotency-Key', () => {
  it('is free again after its short lease when the API that reserved it was killed mid-request', async () => {
    const path = '/lease/crashed';
    handler.on(path, () =>
      handler.at(path).length === 1
        ? { status: 200, hang: true }
        : { status: 200, body: '{"second":true}', headers: { 'content-type': 'application/json' } },
    );
    const ctx = await instantAgent(path);
    const port = await freePort();
    const doomed = startAppProcess('api', { ...fixture.env, PORT: String(port) });
    processes.push(doomed);
    await doomed.waitForOutput(/Toolgate API on/);
    const headers = { 'idempotency-key': 'crash-1' };

    const lost = requester(`http://127.0.0.1:${port}`)('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: ctx.body,
      headers,
    }).catch((error: Error) => error);
    await eventually(() => expect(handler.at(path)).toHaveLength(1), { timeoutMs: 10_000, intervalMs: 10 });
    await doomed.kill('SIGKILL');
    expect(await lost).toBeInstanceOf(Error);

    const held = await api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body: ctx.body, headers });
    expect(held.status).toBe(409);
    expect(held.body.detail).toMatch(/still being processed/);

    await new Promise((resolve) => setTimeout(resolve, LEASE_S * 1000 + 200));
    const retried = await api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body: ctx.body, headers });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body).toMatchObject({ status: 'succeeded', result: { second: true } });
    expect(handler.at(path)).toHaveLength(2);

    // Answered, the key is kept for 24 h.
    const repeat = await api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body: ctx.body, headers });
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body).toEqual(retried.body);
    const [row] = await api.sql(
      "SELECT extract(epoch FROM expires_at - created_at)::int AS ttl_s FROM idempotency_keys WHERE key = 'crash-1'",
    );
    expect(row.ttl_s).toBe(86_400);
  }, 60_000);

  it('replays a first answer over 64 KiB as where to read the call, not the whole body', async () => {
    const path = '/lease/large';
    const big = { rows: Array.from({ length: 2000 }, (_, i) => ({ i, text: 'x'.repeat(40) })) };
    handler.on(path, () => ({
      status: 200,
      body: JSON.stringify(big),
      headers: { 'content-type': 'application/json' },
    }));
    const ctx = await instantAgent(path);
    const headers = { 'idempotency-key': 'large-1' };
    const first = await api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body: ctx.body, headers });
    expect(first.status).toBe(200);
    expect(first.body.result).toEqual(big);
    expect(first.text.length).toBeGreaterThan(64 * 1024);

    const repeat = await api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body: ctx.body, headers });
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body).toEqual({
      call_id: first.body.call_id,
      status: 'succeeded',
      result_omitted: expect.stringContaining(`GET ${ctx.base}/tool-calls/${first.body.call_id}`),
    });
    expect(handler.at(path)).toHaveLength(1);
    const [row] = await api.sql("SELECT length(response::text) AS size FROM idempotency_keys WHERE key = 'large-1'");
    expect(row.size).toBeLessThan(1024);
    const read = await api.request('GET', `${ctx.base}/tool-calls/${first.body.call_id}`, { token: ctx.agent });
    expect(read.body.result).toEqual(big);
  });
});
