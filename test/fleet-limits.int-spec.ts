// Limits that hold across the fleet (API.md "Limits across the fleet"): an app's delivery limits and a project's call
// quotas, counted in Redis by two API processes and two worker processes on one Postgres and one Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/local-services.js';
import { eventually } from './support/eventually.js';
import { agentWithTools, httpTool } from './support/fixtures.js';
import { connectAgentMcp } from './support/mcp-clients.js';
import { type AppProcess, type ProcessFixture, processFixture, startAppProcess } from './support/processes.js';
import { requester } from './support/test-api.js';
import { agentToken } from './support/tokens.js';
import { WebhookHandler } from './support/webhook-handler.js';

let fixture: ProcessFixture;
let handler: WebhookHandler;
const processes: AppProcess[] = [];
let apiA: { baseUrl: string; request: ReturnType<typeof requester> };
let apiB: { baseUrl: string; request: ReturnType<typeof requester> };

async function startApi() {
  const port = await freePort();
  const api = startAppProcess('api', { ...fixture.env, PORT: String(port) });
  processes.push(api);
  await api.waitForOutput(/Toolgate API on/);
  const baseUrl = `http://127.0.0.1:${port}`;
  return { baseUrl, request: requester(baseUrl) };
}

async function startWorker() {
  const worker = startAppProcess('worker', fixture.env);
  processes.push(worker);
  await worker.waitForOutput(/consuming/);
}

beforeAll(async () => {
  fixture = await processFixture();
  handler = await new WebhookHandler().start();
  [apiA, apiB] = await Promise.all([startApi(), startApi()]);
  await Promise.all([startWorker(), startWorker()]);
}, 60_000);
afterAll(async () => {
  await Promise.all(processes.map((p) => p.kill('SIGTERM')));
  await handler?.stop();
  await fixture?.stop();
});

/** An agent with one tool of a fresh app answered at `path`, the app's limits set by PATCH. */
async function limitedTool(path: string, tool: Record<string, unknown>, limits: Record<string, unknown>) {
  const ctx = await agentWithTools(apiA, [httpTool({ handler_url: handler.url(path), ...tool })]);
  handler.secrets.push(ctx.app.webhook_secret);
  const patched = await apiA.request('PATCH', `/v1/apps/${ctx.app.id}`, {
    token: ctx.dev,
    body: { delivery_limits: limits },
  });
  expect(patched.status, patched.text).toBe(200);
  const call = (api: typeof apiA, i: number, headers?: Record<string, string>) =>
    api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: ctx.toolName, dialog_id: 'd1', arguments: { customer_id: `c${i}` } },
      headers,
    });
  return { ...ctx, call };
}

/** Another agent of the same project and installation, given the same tool. */
async function anotherAgent(ctx: Awaited<ReturnType<typeof agentWithTools>>, agentId: string) {
  const given = await apiA.request('POST', `/v1/projects/${ctx.projectId}/agents/${agentId}/tool-instances`, {
    token: ctx.project,
    body: { installation_id: ctx.installationId, tool_name: ctx.tools[0].name },
  });
  expect(given.status, given.text).toBe(201);
  return { agentId, agent: await agentToken(ctx.projectId, agentId), base: `/v1/agents/${agentId}` };
}

/** A counter's value in an API's /metrics (0 when the series is not there). */
async function metric(api: typeof apiA, name: string, labels: Record<string, string>): Promise<number> {
  const text = (await api.request('GET', '/metrics')).text;
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && wanted.every((pair) => l.slice(0, l.indexOf('}')).includes(pair)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** How many of `times` fall in the busiest window of `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i += 1) {
    while (sorted[i] - sorted[j] >= windowMs) j += 1;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe("an app's delivery limits, across two APIs and two workers", () => {
  it('are set by PATCH, read back, and refused with a message when out of range', async () => {
    const ctx = await agentWithTools(apiA, [httpTool()]);
    const read = await apiB.request('GET', `/v1/apps/${ctx.app.id}`, { token: ctx.dev });
    expect(read.body.delivery_limits).toEqual({ max_in_flight: null, max_per_second: null });
    const never = await apiB.request('GET', `/v1/apps/${ctx.app.id}/delivery-limits`, { token: ctx.dev });
    expect(never.body).toEqual({ max_in_flight: null, max_per_second: null, last_held_back_at: null });

    const set = await apiA.request('PATCH', `/v1/apps/${ctx.app.id}`, {
      token: ctx.dev,
      body: { delivery_limits: { max_in_flight: 3 } },
    });
    expect(set.body.delivery_limits).toEqual({ max_in_flight: 3, max_per_second: null });
    const more = await apiA.request('PATCH', `/v1/apps/${ctx.app.id}`, {
      token: ctx.dev,
      body: { delivery_limits: { max_per_second: 10_000 } },
    });
    expect(more.body.delivery_limits).toEqual({ max_in_flight: 3, max_per_second: 10_000 });

    for (const [limits, field] of [
      [{ max_in_flight: 0 }, 'max_in_flight'],
      [{ max_in_flight: 1001 }, 'max_in_flight'],
      [{ max_per_second: 10_001 }, 'max_per_second'],
      [{ max_per_second: 1.5 }, 'max_per_second'],
      [{ max_in_flight: '3' }, 'max_in_flight'],
      [{ burst: 3 }, 'burst'],
    ] as const) {
      const refused = await apiA.request('PATCH', `/v1/apps/${ctx.app.id}`, {
        token: ctx.dev,
        body: { delivery_limits: limits },
      });
      expect(refused.status, JSON.stringify(limits)).toBe(422);
      expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(JSON.stringify(refused.body.errors)).toContain(field);
    }

    const cleared = await apiA.request('PATCH', `/v1/apps/${ctx.app.id}`, {
      token: ctx.dev,
      body: { delivery_limits: null },
    });
    expect(cleared.body.delivery_limits).toEqual({ max_in_flight: null, max_per_second: null });
  });

  it('max_in_flight 3: 40 background calls through both APIs all succeed once, never more than 3 open', async () => {
    const path = '/limits/in-flight';
    let open = 0;
    let mostOpen = 0;
    handler.on(path, () => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      setTimeout(() => (open -= 1), 400); // before the reply below is written
      return { status: 200, delayMs: 400, body: '{}', headers: { 'content-type': 'application/json' } };
    });
    const ctx = await limitedTool(path, { execution_mode: 'background', retry_window: '3h' }, { max_in_flight: 3 });
    const accepted = await Promise.all(Array.from({ length: 40 }, (_, i) => ctx.call(i % 2 === 0 ? apiA : apiB, i)));
    expect(accepted.map((r) => r.status)).toEqual(Array(40).fill(202));

    await eventually(
      async () => {
        const { rows } = await fixture.db.query(
          "SELECT count(*)::int AS n FROM tool_calls WHERE app_id = $1 AND status = 'succeeded'",
          [ctx.app.id],
        );
        expect(rows[0].n).toBe(40);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const received = handler.at(path);
    expect(received).toHaveLength(40);
    expect(new Set(received.map((r) => r.event.event_id)).size).toBe(40);
    expect(mostOpen).toBe(3);
    // Held back is not an attempt: each call succeeded at its first.
    const { rows } = await fixture.db.query(
      'SELECT count(*)::int AS n FROM tool_call_attempts a JOIN tool_calls c ' +
        'ON c.id = a.call_id WHERE c.app_id = $1',
      [ctx.app.id],
    );
    expect(rows[0].n).toBe(40);
    // The APIs' first attempts found the app full and left the calls to the workers: counted as held back.
    const held = { app_id: ctx.app.id, reason: 'in_flight', outcome: 'held' };
    const heldByApis =
      (await metric(apiA, 'toolgate_delivery_limited_total', held)) +
      (await metric(apiB, 'toolgate_delivery_limited_total', held));
    expect(heldByApis).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('max_per_second 5: no more than 5 (+1 for clock edges) started in any second', async () => {
    const path = '/limits/per-second';
    const ctx = await limitedTool(path, { execution_mode: 'background', retry_window: '3h' }, { max_per_second: 5 });
    const accepted = await Promise.all(Array.from({ length: 40 }, (_, i) => ctx.call(i % 2 === 0 ? apiA : apiB, i)));
    expect(accepted.every((r) => r.status === 202)).toBe(true);
    await eventually(() => expect(handler.at(path)).toHaveLength(40), { timeoutMs: 30_000, intervalMs: 100 });
    const starts = handler.at(path).map((r) => r.receivedAt);
    for (const p of processes) expect(p.output()).not.toMatch(/limits are not enforced/);
    expect(busiestWindow(starts, 1000), JSON.stringify(starts.map((t) => t - starts[0]))).toBeLessThanOrEqual(6);
    // 40 at 5 a second: at least seven seconds from the first to the last.
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(6900);
  }, 60_000);

  it('an instant call that gets no slot within 2 s answers 429 with Retry-After, and nothing is stored', async () => {
    const path = '/limits/instant';
    handler.on(path, () => ({
      status: 200,
      delayMs: 4000,
      body: '{}',
      headers: { 'content-type': 'application/json' },
    }));
    const ctx = await limitedTool(path, { execution_mode: 'instant' }, { max_in_flight: 1 });
    const first = ctx.call(apiA, 1);
    await eventually(() => expect(handler.at(path)).toHaveLength(1), { timeoutMs: 5000, intervalMs: 10 });

    const started = performance.now();
    const refused = await ctx.call(apiB, 2);
    const tookMs = performance.now() - started;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(refused.body.type).toBe('urn:toolgate:problem:rate_limited');
    expect(refused.body.detail).toMatch(/max_in_flight/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(tookMs).toBeGreaterThanOrEqual(1900);
    expect(tookMs).toBeLessThan(4500);

    expect((await first).status).toBe(200);
    expect(handler.at(path)).toHaveLength(1);
    const { rows } = await fixture.db.query('SELECT count(*)::int AS n FROM tool_calls WHERE app_id = $1', [
      ctx.app.id,
    ]);
    expect(rows[0].n).toBe(1);
    const refusedHere = { app_id: ctx.app.id, reason: 'in_flight', outcome: 'refused' };
    expect(await metric(apiB, 'toolgate_delivery_limited_total', refusedHere)).toBe(1);
    // The developer sees when the limit last held one back.
    const status = await apiA.request('GET', `/v1/apps/${ctx.app.id}/delivery-limits`, { token: ctx.dev });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ max_in_flight: 1, max_per_second: null });
    expect(Date.now() - Date.parse(status.body.last_held_back_at)).toBeLessThan(10_000);
    // The slot is free again: the next call goes through.
    handler.on(path, () => ({ status: 200, body: '{}', headers: { 'content-type': 'application/json' } }));
    expect((await ctx.call(apiB, 3)).status).toBe(200);
  }, 30_000);
});

describe("a project's call quotas, across REST, MCP and two APIs", () => {
  it('are set by PUT and read back, refused with a message when invalid', async () => {
    const ctx = await agentWithTools(apiA, [httpTool()]);
    const none = await apiB.request('GET', `/v1/projects/${ctx.projectId}/limits`, { token: ctx.project });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ agent_calls_per_minute: null, project_calls_per_minute: null });
    const set = await apiA.request('PUT', `/v1/projects/${ctx.projectId}/limits`, {
      token: ctx.project,
      body: { agent_calls_per_minute: 10, project_calls_per_minute: 100 },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ agent_calls_per_minute: 10, project_calls_per_minute: 100 });
    const read = await apiB.request('GET', `/v1/projects/${ctx.projectId}/limits`, { token: ctx.project });
    expect(read.body).toEqual(set.body);
    for (const body of [{ agent_calls_per_minute: 0 }, { project_calls_per_minute: 'ten' }, { per_hour: 3 }]) {
      const refused = await apiA.request('PUT', `/v1/projects/${ctx.projectId}/limits`, { token: ctx.project, body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(JSON.stringify(refused.body.errors)).toContain(Object.keys(body)[0]);
    }
    // Another project's quotas are not found with this project's token, as any of its routes.
    const other = await apiA.request('GET', `/v1/projects/p_other/limits`, { token: ctx.project });
    expect(other.status).toBe(404);
  });

  it('4 per agent a minute: the 5th call on the other API is 429, its MCP twin an isError, another agent unaffected', async () => {
    const path = '/quotas/agent';
    const ctx = await agentWithTools(apiA, [httpTool({ handler_url: handler.url(path) })]);
    handler.secrets.push(ctx.app.webhook_secret);
    const put = await apiA.request('PUT', `/v1/projects/${ctx.projectId}/limits`, {
      token: ctx.project,
      body: { agent_calls_per_minute: 4 },
    });
    expect(put.body).toEqual({ agent_calls_per_minute: 4, project_calls_per_minute: null });
    const call = (api: typeof apiA, token: string, base: string, headers?: Record<string, string>) =>
      api.request('POST', `${base}/tool-calls`, {
        token,
        body: { tool: ctx.toolName, dialog_id: 'd1', arguments: { customer_id: 'c1' } },
        headers,
      });

    const first = await call(apiA, ctx.agent, ctx.base, { 'idempotency-key': 'quota-1' });
    expect(first.status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await call(apiA, ctx.agent, ctx.base)).status).toBe(200);

    const fifth = await call(apiB, ctx.agent, ctx.base);
    expect(fifth.status).toBe(429);
    expect(fifth.body.type).toBe('urn:toolgate:problem:rate_limited');
    expect(fifth.body.detail).toMatch(/agent_calls_per_minute/);
    const retryAfter = Number(fifth.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(55);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The first call replayed from its Idempotency-Key is not counted again.
    const replayed = await call(apiB, ctx.agent, ctx.base, { 'idempotency-key': 'quota-1' });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    const mcp = await connectAgentMcp(apiB, 'v2', ctx.agentId, ctx.agent);
    try {
      const answer = await mcp.callTool({ name: ctx.toolName, arguments: { customer_id: 'c1' } });
      expect(answer.isError).toBe(true);
      expect(JSON.stringify(answer.content)).toMatch(/agent_calls_per_minute/);
    } finally {
      await mcp.close();
    }

    const other = await anotherAgent(ctx, `${ctx.agentId}_other`);
    expect((await call(apiB, other.agent, other.base)).status).toBe(200);
    const overQuota = { quota: 'agent_calls_per_minute' };
    expect(await metric(apiB, 'toolgate_call_quota_refused_total', overQuota)).toBe(2); // REST and MCP

    const { rows } = await fixture.db.query(
      'SELECT agent_id, count(*)::int AS n FROM tool_calls WHERE project_id = $1 GROUP BY agent_id ORDER BY n DESC',
      [ctx.projectId],
    );
    expect(rows).toEqual([
      { agent_id: ctx.agentId, n: 4 },
      { agent_id: other.agentId, n: 1 },
    ]);
    expect(handler.at(path)).toHaveLength(5);
  }, 30_000);

  it("a project's quota counts all its agents together", async () => {
    const ctx = await agentWithTools(apiA, [httpTool({ handler_url: handler.url('/quotas/project') })]);
    handler.secrets.push(ctx.app.webhook_secret);
    await apiA.request('PUT', `/v1/projects/${ctx.projectId}/limits`, {
      token: ctx.project,
      body: { project_calls_per_minute: 2 },
    });
    const other = await anotherAgent(ctx, `${ctx.agentId}_other`);
    const call = (api: typeof apiA, token: string, base: string) =>
      api.request('POST', `${base}/tool-calls`, {
        token,
        body: { tool: ctx.toolName, dialog_id: 'd1', arguments: { customer_id: 'c1' } },
      });
    expect((await call(apiA, ctx.agent, ctx.base)).status).toBe(200);
    expect((await call(apiB, other.agent, other.base)).status).toBe(200);
    const third = await call(apiA, other.agent, other.base);
    expect(third.status).toBe(429);
    expect(third.body.detail).toMatch(/project_calls_per_minute/);
  });
});
