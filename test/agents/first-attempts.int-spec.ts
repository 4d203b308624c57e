// The API makes the first attempt of a queued call itself while it has a free slot (FirstAttempts): no worker runs
// here until a test starts one, so every delivery seen before that is the API's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryQueue } from '../../libs/queue/src/index.js';
import { eventually } from '../support/eventually.js';
import { agentWithHandlerTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack(
    { API_DELIVERY_CONCURRENCY: '2', APP_DELIVERY_CONCURRENCY: '1', RETRY_TIME_SCALE: '0.01' },
    { worker: false },
  );
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

const setup = (toolOverrides: Record<string, unknown> = {}) =>
  agentWithHandlerTool(stack.api, handler, { execution_mode: 'background', retry_window: '5m', ...toolOverrides });

/** The queue job of attempt `n` of a call's first round, if there is one. */
const jobOf = (callId: string, n: number) => stack.api.app.get(DeliveryQueue).queue.getJob(`${callId}-r1-a${n}`);

const rowOf = async (callId: string) =>
  (await stack.api.sql('SELECT status, next_attempt_n FROM tool_calls WHERE id = $1', [callId]))[0];

describe('first attempts made by the API', () => {
  it('delivers a background call without the queue: answered 202 queued, sent signed, recorded', async () => {
    const ctx = await setup();
    handler.on(ctx.path, () => ({
      status: 200,
      body: '{"done":true}',
      headers: { 'content-type': 'application/json' },
    }));
    const accepted = await ctx.call();
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ call_id: expect.stringMatching(/^call_/), status: 'queued' });
    const callId = accepted.body.call_id;

    const finished = await ctx.read(callId, 5);
    expect(finished.body).toMatchObject({ call_id: callId, status: 'succeeded', result: { done: true } });
    // Verified by the handler with the verifier library and the standardwebhooks package.
    expect(handler.at(ctx.path)).toHaveLength(1);
    expect(handler.rejected).toEqual([]);
    expect(handler.at(ctx.path)[0].event).toMatchObject({ event_type: 'tool_call', arguments: { customer_id: 'c1' } });
    const detail = await ctx.detail(callId);
    expect(detail.body.attempts).toMatchObject([{ n: 1, outcome: 'success', http_status: 200 }]);
    expect(await jobOf(callId, 1)).toBeUndefined();
    const metrics = await stack.api.request('GET', '/metrics');
    expect(metrics.text).toMatch(/^toolgate_queued_call_first_attempts_total\{by="api"\} [1-9]/m);
  });

  it("queues a failed first attempt's next one at its offset, and the worker makes it", async () => {
    const ctx = await setup({ execution_mode: 'wait' });
    handler.on(ctx.path, ({ attempt }) => (attempt === 1 ? { status: 503, body: 'busy' } : { status: 200 }));
    const callId = (await ctx.call()).body.call_id;
    await eventually(async () => expect(await rowOf(callId)).toEqual({ status: 'queued', next_attempt_n: 2 }));
    // The row's commit comes before the job is added (a crash between them is the reconciler's): wait for both.
    const job = await eventually(async () => {
      const queued = await jobOf(callId, 2);
      expect(queued).toBeDefined();
      return queued;
    });
    // Due at its offset from attempt 1 (a loaded machine may add the job once it is due already: delay 0).
    const dueAt = (job?.timestamp ?? 0) + (job?.opts.delay ?? 0);
    expect(await jobOf(callId, 1)).toBeUndefined();

    await stack.startWorker();
    try {
      const finished = await ctx.read(callId, 5);
      expect(finished.body).toMatchObject({ status: 'succeeded' });
      const detail = await ctx.detail(callId);
      expect(detail.body.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['http_status', 'success']);
      // Attempt 2 went out at its offset from attempt 1 (150 ms at this scale), not at once.
      const [first, second] = detail.body.attempts.map((a: { started_at: string }) => Date.parse(a.started_at));
      expect(second - first).toBeGreaterThanOrEqual(148);
      expect(dueAt - first).toBeGreaterThanOrEqual(148);
    } finally {
      await stack.stopWorker();
    }
  });

  it('queues what finds no free slot, of its app or of the API, and makes first attempts again once one frees', async () => {
    const [a, b, c] = [await setup(), await setup(), await setup()];
    handler.secrets = [a, b, c].map((ctx) => ctx.app.webhook_secret);
    for (const ctx of [a, b]) handler.on(ctx.path, () => ({ status: 200, delayMs: 1500 }));
    handler.on(c.path, () => ({ status: 200 }));

    // App A's one slot (APP_DELIVERY_CONCURRENCY=1) is taken by its first call, whose handler takes 1.5 s.
    const a1 = (await a.call()).body.call_id;
    await eventually(() => expect(handler.at(a.path)).toHaveLength(1));
    const a2 = (await a.call()).body.call_id;
    expect(await rowOf(a2)).toEqual({ status: 'queued', next_attempt_n: 1 });
    expect(await jobOf(a2, 1)).toBeDefined();
    // App B takes the API's second and last slot (API_DELIVERY_CONCURRENCY=2); app C finds none.
    const b1 = (await b.call()).body.call_id;
    await eventually(() => expect(handler.at(b.path)).toHaveLength(1));
    const c1 = (await c.call()).body.call_id;
    expect(await rowOf(c1)).toEqual({ status: 'queued', next_attempt_n: 1 });
    expect(await jobOf(c1, 1)).toBeDefined();
    expect(handler.at(c.path)).toHaveLength(0);
    expect((await rowOf(a1)).status).toBe('in_progress');

    // The slow handlers answer: their slots free, and app C's next call is made here at once.
    await eventually(async () => expect((await rowOf(b1)).status).toBe('succeeded'), { timeoutMs: 5000 });
    await eventually(async () => expect((await rowOf(a1)).status).toBe('succeeded'), { timeoutMs: 5000 });
    const c2 = (await c.call()).body.call_id;
    await eventually(async () => expect((await rowOf(c2)).status).toBe('succeeded'));
    expect(await jobOf(c2, 1)).toBeUndefined();
  }, 20_000);
});
