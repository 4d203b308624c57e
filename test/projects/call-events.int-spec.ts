import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Metrics } from '../../libs/observability/src/index.js';
import { verifyToolCallFinished } from '../../libs/verifier/src/index.js';
import { EventReceiver } from '../support/event-receiver.js';
import { eventually } from '../support/eventually.js';
import { agentWithHandlerTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { projectToken } from '../support/tokens.js';
import { WebhookHandler } from '../support/webhook-handler.js';

const SCALE = 0.01; // the 5m schedule: 0, 150, 600, 1800, 3000 ms
let stack: TestStack;
let handler: WebhookHandler;
let receiver: EventReceiver;
const appSecrets: string[] = [];

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  receiver = await new EventReceiver().start();
  stack = await startTestStack({ RETRY_TIME_SCALE: String(SCALE), RECONCILE_INTERVAL_MS: '300' });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
  await receiver.stop();
});

/** A project whose agent has one tool (wait by default) answered by `handler`, and the project's endpoint calls. */
async function setup(toolOverrides: Record<string, unknown> = { execution_mode: 'wait', retry_window: '5m' }) {
  const ctx = await agentWithHandlerTool(stack.api, handler, toolOverrides);
  appSecrets.push(ctx.app.webhook_secret);
  handler.secrets = appSecrets;
  const endpoint = `/v1/projects/${ctx.projectId}/event-endpoint`;
  const setEndpoint = async (url = receiver.url()) => {
    const put = await stack.api.request('PUT', endpoint, { token: ctx.project, body: { url } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    return put.body as { url: string; secret: string };
  };
  return { ...ctx, endpoint, setEndpoint };
}

/** The call's event rows, as Postgres holds them. */
async function eventRows(callId: string) {
  return stack.api.sql<{ id: string; status: string; round: number }>(
    'SELECT id, status, round FROM call_events WHERE call_id = $1 ORDER BY round',
    [callId],
  );
}

async function ended(ctx: Awaited<ReturnType<typeof setup>>, callId: string, status = 'succeeded') {
  await eventually(async () => expect((await ctx.read(callId)).body.status).toBe(status), { timeoutMs: 20_000 });
}

describe('the event endpoint routes', () => {
  it('set, read, rotate and remove the endpoint; the secret is shown only when set and rotated', async () => {
    const ctx = await setup();
    const none = await stack.api.request('GET', ctx.endpoint, { token: ctx.project });
    expect(none.status).toBe(404);
    expect(none.headers.get('content-type')).toContain('application/problem+json');

    const refused = await stack.api.request('PUT', ctx.endpoint, { token: ctx.project, body: { url: 'ftp://x' } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].path).toBe('url');

    const set = await ctx.setEndpoint('https://host.example.com/events');
    expect(set).toEqual({
      url: 'https://host.example.com/events',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const read = await stack.api.request('GET', ctx.endpoint, { token: ctx.project });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ url: 'https://host.example.com/events' });

    const moved = await ctx.setEndpoint('https://host.example.com/other');
    expect(moved).toEqual({ url: 'https://host.example.com/other', secret: set.secret });

    const rotated = await stack.api.request('POST', `${ctx.endpoint}/rotate-secret`, { token: ctx.project });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(set.secret);
    expect(Date.parse(rotated.body.previous_valid_until) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const stored = await stack.api.sql('SELECT secret_enc, retired_secrets::text AS retired FROM event_endpoints');
    expect(JSON.stringify(stored)).not.toContain(set.secret.slice('whsec_'.length));
    expect(JSON.stringify(stored)).not.toContain(rotated.body.secret.slice('whsec_'.length));

    const other = await projectToken(`${ctx.projectId}-other`);
    expect((await stack.api.request('GET', ctx.endpoint, { token: other })).status).toBe(404);
    expect((await stack.api.request('DELETE', ctx.endpoint, { token: ctx.agent })).status).toBe(403);

    expect((await stack.api.request('DELETE', ctx.endpoint, { token: ctx.project })).status).toBe(204);
    expect((await stack.api.request('GET', ctx.endpoint, { token: ctx.project })).status).toBe(404);
    expect((await stack.api.request('DELETE', ctx.endpoint, { token: ctx.project })).status).toBe(404);
    expect((await stack.api.request('POST', `${ctx.endpoint}/rotate-secret`, { token: ctx.project })).status).toBe(404);
  });
});

describe('tool_call.finished events', () => {
  it('tell the endpoint when a wait call ends: signed, verifiable by @toolgate/verifier and standardwebhooks', async () => {
    const ctx = await setup();
    const { secret } = await ctx.setEndpoint();
    handler.on(ctx.path, () => ({
      status: 200,
      body: '{"found":true}',
      headers: { 'content-type': 'application/json' },
    }));
    const accepted = await ctx.call({ dialog_id: 'dialog-7', lead_id: 'lead-3' });
    expect(accepted.status).toBe(202);
    const callId = accepted.body.call_id as string;
    const [event] = await eventually(() => {
      const arrivals = receiver.forCall(callId);
      expect(arrivals).toHaveLength(1);
      return arrivals;
    });

    const verified = verifyToolCallFinished(event.rawBody, event.headers, secret);
    const headers = Object.fromEntries(Object.entries(event.headers).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(secret).verify(event.rawBody.toString('utf8'), headers)).toEqual(verified);
    expect(() => verifyToolCallFinished(event.rawBody, event.headers, ctx.app.webhook_secret)).toThrow(/signature/);

    const call = (await ctx.read(callId)).body;
    expect(event.rawBody.toString('utf8')).toBe(
      JSON.stringify({
        type: 'tool_call.finished',
        call: {
          call_id: callId,
          agent_id: ctx.agentId,
          dialog_id: 'dialog-7',
          lead_id: 'lead-3',
          tool: ctx.toolName,
          execution_mode: 'wait',
          status: 'succeeded',
          result: { found: true },
          result_text: '{"found":true}',
          error: null,
          finished_at: verified.call.finished_at,
        },
      }),
    );
    expect(call.status).toBe('succeeded');
    expect(Math.abs(Date.parse(verified.call.finished_at) - Date.now())).toBeLessThan(60_000);
    const webhookId = String(event.headers['webhook-id']);
    const toolCallEventId = handler.at(ctx.path)[0].event.event_id;
    expect(webhookId).not.toBe(toolCallEventId);
    expect(event.headers['x-webhook-event-id']).toBe(webhookId);
    expect(event.headers['user-agent']).toMatch(/^toolgate\//);
    await eventually(async () =>
      expect(await eventRows(callId)).toEqual([{ id: webhookId, status: 'succeeded', round: 1 }]),
    );
  });

  it('tell it when a background call fails or is cancelled, and never for an instant call', async () => {
    const ctx = await setup({ execution_mode: 'background', retry_window: '5m' });
    await ctx.setEndpoint();
    handler.on(ctx.path, () => ({ status: 410, body: 'gone for good' }));
    const failed = (await ctx.call()).body.call_id as string;
    await ended(ctx, failed, 'failed');
    const [event] = await eventually(() => {
      expect(receiver.forCall(failed)).toHaveLength(1);
      return receiver.forCall(failed);
    });
    expect(event.body.call).toMatchObject({
      status: 'failed',
      execution_mode: 'background',
      result: null,
      error: { kind: 'gone', http_status: 410 },
    });

    handler.on(ctx.path, () => ({ status: 503 }));
    const cancelled = (await ctx.call()).body.call_id as string;
    await eventually(() => expect(handler.at(ctx.path).length).toBeGreaterThanOrEqual(2));
    const cancel = await stack.api.request('POST', `${ctx.base}/tool-calls/${cancelled}/cancel`, { token: ctx.agent });
    expect(cancel.status).toBe(200);
    await eventually(() => expect(receiver.forCall(cancelled)).toHaveLength(1));
    expect(receiver.forCall(cancelled)[0].body.call).toMatchObject({
      status: 'cancelled',
      error: { kind: 'cancelled' },
    });

    const instant = await setup({ execution_mode: 'instant' });
    await instant.setEndpoint();
    const answered = await instant.call();
    expect(answered.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.forCall(answered.body.call_id)).toEqual([]);
    expect(await eventRows(answered.body.call_id)).toEqual([]);
  });

  it('store and send nothing for a project without an endpoint, or once it is removed', async () => {
    const ctx = await setup();
    const callId = (await ctx.call()).body.call_id as string;
    await ended(ctx, callId);
    await ctx.setEndpoint();
    expect((await stack.api.request('DELETE', ctx.endpoint, { token: ctx.project })).status).toBe(204);
    const after = (await ctx.call()).body.call_id as string;
    await ended(ctx, after);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.forCall(callId)).toEqual([]);
    expect(receiver.forCall(after)).toEqual([]);
    expect(await eventRows(callId)).toEqual([]);
    expect(await eventRows(after)).toEqual([]);
  });

  it('are retried on the 5m schedule, each retry with the same id and bytes; 410 stops them', async () => {
    const ctx = await setup();
    await ctx.setEndpoint(receiver.url('/flaky'));
    receiver.answer = (arrival) => ({ status: arrival < 3 ? 503 : 200 });
    try {
      const callId = (await ctx.call()).body.call_id as string;
      await eventually(() => expect(receiver.forCall(callId)).toHaveLength(3), { timeoutMs: 20_000 });
      const arrivals = receiver.forCall(callId);
      expect(new Set(arrivals.map((a) => a.headers['webhook-id'])).size).toBe(1);
      expect(new Set(arrivals.map((a) => a.rawBody.toString('hex'))).size).toBe(1);
      const offsets = arrivals.map((a) => a.receivedAt - arrivals[0].receivedAt);
      expect(offsets[1]).toBeGreaterThanOrEqual(150 - 20);
      expect(offsets[2]).toBeGreaterThanOrEqual(600 - 20);
      expect(offsets[2]).toBeLessThan(600 + 1000);
      await eventually(async () => expect((await eventRows(callId))[0].status).toBe('succeeded'));
      const attempts = await stack.api.sql(
        `SELECT n, outcome, http_status FROM call_event_attempts a JOIN call_events e ON e.id = a.event_id
          WHERE e.call_id = $1 ORDER BY n`,
        [callId],
      );
      expect(attempts).toEqual([
        { n: 1, outcome: 'http_status', http_status: 503 },
        { n: 2, outcome: 'http_status', http_status: 503 },
        { n: 3, outcome: 'success', http_status: 200 },
      ]);
      const logged = await stack.api.request('GET', `/v1/projects/${ctx.projectId}/tool-calls/${callId}`, {
        token: ctx.project,
      });
      expect(logged.body.events).toEqual([
        expect.objectContaining({ id: arrivals[0].headers['webhook-id'], round: 1, status: 'succeeded' }),
      ]);
      expect(
        logged.body.events[0].attempts.map((a: { outcome: string; http_status: number }) => a.http_status),
      ).toEqual([503, 503, 200]);

      receiver.answer = () => ({ status: 410 });
      const gone = (await ctx.call()).body.call_id as string;
      await eventually(async () => expect((await eventRows(gone))[0]?.status).toBe('failed'));
      await new Promise((resolve) => setTimeout(resolve, 400)); // past the second offset (150 ms)
      expect(receiver.forCall(gone)).toHaveLength(1);
    } finally {
      receiver.answer = () => ({ status: 204 });
    }
  });

  it("are attempts like a call's: the endpoint's answer kept and shown, what it said in the error, counted", async () => {
    const ctx = await setup();
    await ctx.setEndpoint(receiver.url('/said'));
    receiver.answer = (arrival) =>
      arrival === 1
        ? { status: 410, headers: { 'content-type': 'application/json' }, body: '{"error":"endpoint-retired-text"}' }
        : { status: 204 };
    try {
      const callId = (await ctx.call()).body.call_id as string;
      await eventually(async () => expect((await eventRows(callId))[0]?.status).toBe('failed'));
      const logged = await stack.api.request('GET', `/v1/projects/${ctx.projectId}/tool-calls/${callId}`, {
        token: ctx.project,
      });
      const [event] = logged.body.events;
      expect(event.error).toEqual({
        kind: 'gone',
        message: expect.stringContaining('endpoint-retired-text'),
        http_status: 410,
      });
      expect(event.attempts).toEqual([
        expect.objectContaining({
          n: 1,
          outcome: 'gone',
          http_status: 410,
          response_excerpt: '{"error":"endpoint-retired-text"}',
        }),
      ]);
      const metrics = await stack.worker!.get(Metrics).registry.metrics();
      expect(metrics).toMatch(
        /^toolgate_delivery_attempts_total\{delivery="tool_call\.finished",outcome="gone"\} [1-9]/m,
      );
      expect(metrics).toMatch(
        /^toolgate_delivery_attempt_lateness_seconds_count\{delivery="tool_call\.finished"\} [1-9]/m,
      );
    } finally {
      receiver.answer = () => ({ status: 204 });
    }
  });

  it('carry two signatures during a rotation, each one verifying alone', async () => {
    const ctx = await setup();
    const { secret: before } = await ctx.setEndpoint();
    const rotated = await stack.api.request('POST', `${ctx.endpoint}/rotate-secret`, { token: ctx.project });
    const after = rotated.body.secret as string;
    const callId = (await ctx.call()).body.call_id as string;
    await eventually(() => expect(receiver.forCall(callId)).toHaveLength(1));
    const [event] = receiver.forCall(callId);
    expect(String(event.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headers = Object.fromEntries(Object.entries(event.headers).map(([k, v]) => [k, String(v)]));
    for (const secret of [before, after]) {
      expect(verifyToolCallFinished(event.rawBody, event.headers, secret).call.call_id).toBe(callId);
      expect(new Webhook(secret).verify(event.rawBody.toString('utf8'), headers)).toMatchObject({
        call: { call_id: callId },
      });
    }
  });
});

describe('nothing is lost', () => {
  /** Deletes every key of this file's queue: what a FLUSHALL does to it. */
  async function emptyRedis() {
    const client = new Redis(inject('redisUrl'));
    try {
      const keys = await client.keys(`${stack.api.env.QUEUE_PREFIX}*`);
      if (keys.length > 0) await client.del(...keys);
    } finally {
      client.disconnect();
    }
  }

  it('an event whose job Redis lost, or whose worker died mid-attempt, is still delivered', async () => {
    const ctx = await setup();
    await ctx.setEndpoint();
    let lost = '';
    let killed = '';
    await stack.stopWorker(); // the API makes the call's first attempt itself; the event's job waits in Redis
    try {
      lost = (await ctx.call()).body.call_id as string;
      await ended(ctx, lost);
      await eventually(async () => expect((await eventRows(lost))[0]?.status).toBe('queued'));
      await emptyRedis();

      killed = (await ctx.call()).body.call_id as string;
      await ended(ctx, killed);
      await eventually(async () => expect(await eventRows(killed)).toHaveLength(1));
      // As a worker killed during the attempt leaves it: in progress, its deadline past, no job.
      await stack.api.sql(
        `UPDATE call_events SET status = 'in_progress', attempt_deadline = now() AT TIME ZONE 'UTC' - interval '1 minute'
          WHERE call_id = $1`,
        [killed],
      );
      await emptyRedis();
      expect(receiver.forCall(lost)).toEqual([]);
      expect(receiver.forCall(killed)).toEqual([]);
    } finally {
      await stack.startWorker();
    }
    for (const callId of [lost, killed]) {
      await eventually(async () => expect((await eventRows(callId))[0].status).toBe('succeeded'), {
        timeoutMs: 20_000,
      });
      expect(receiver.forCall(callId).length).toBeGreaterThanOrEqual(1);
    }
  }, 60_000);
});

describe('the SSRF guard', () => {
  it('keeps events from a private address as it keeps webhooks: nothing is sent, the attempt says why', async () => {
    const guarded = await startTestStack({ ALLOW_PRIVATE_NETWORK: 'false', RETRY_TIME_SCALE: String(SCALE) });
    try {
      const ctx = await agentWithHandlerTool(guarded.api, handler, { execution_mode: 'wait', retry_window: '5m' });
      const endpoint = `/v1/projects/${ctx.projectId}/event-endpoint`;
      const put = await guarded.api.request('PUT', endpoint, {
        token: ctx.project,
        body: { url: receiver.url('/private') },
      });
      expect(put.status).toBe(200);
      const callId = (await ctx.call()).body.call_id as string;
      const rows = () => guarded.api.sql('SELECT status FROM call_events WHERE call_id = $1', [callId]);
      await eventually(async () => expect((await rows())[0]?.status).toBe('failed'), { timeoutMs: 20_000 });
      const attempts = await guarded.api.sql(
        `SELECT a.outcome FROM call_event_attempts a JOIN call_events e ON e.id = a.event_id WHERE e.call_id = $1`,
        [callId],
      );
      expect(attempts.length).toBeGreaterThanOrEqual(1);
      expect(attempts.every((a) => a.outcome === 'blocked_address')).toBe(true);
      expect(receiver.forCall(callId)).toEqual([]);
    } finally {
      await guarded.close();
    }
  }, 60_000);
});
