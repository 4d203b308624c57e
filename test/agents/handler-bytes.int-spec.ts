// Any bytes from a handler or an MCP server are recorded, once: the call ends, exactly one webhook
// goes out per attempt, and the attempt reads back (docs/api.md "What any input gets").
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVER_JOB, DeliveryQueue, toolCallJob } from '../../libs/queue/src/index.js';
import { eventually } from '../support/eventually.js';
import { agentWithHandlerTool } from '../support/fixtures.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { ODD_TEXT, startOddTextServer } from '../support/mcp-servers.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { type Reply, WebhookHandler } from '../support/webhook-handler.js';

const SCALE = 0.01; // 5m schedule: 0, 150, 600, 1800, 3000 ms
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

const TERMINAL = ['succeeded', 'failed', 'cancelled'];
/** Long enough for a job retry (BullMQ backoff 1 s) or a reconciler tick to send again, were either to. */
const SETTLE_MS = 1500;

const setup = (executionMode: string) =>
  agentWithHandlerTool(stack.api, handler, {
    execution_mode: executionMode,
    ...(executionMode === 'instant' ? {} : { retry_window: '5m' }),
  });

/** Makes a call answered by `reply`, waits until it ends, and gives what the agent and the developer read back. */
async function callAnswered(executionMode: string, reply: (attempt: number) => Reply) {
  const ctx = await setup(executionMode);
  handler.on(ctx.path, ({ attempt }) => reply(attempt));
  const accepted = await ctx.call();
  expect(accepted.status, accepted.text).toBe(executionMode === 'instant' ? 200 : 202);
  const callId = accepted.body.call_id as string;
  await eventually(async () => expect((await ctx.read(callId, 5)).body.status, 'the call ends').toBeOneOf(TERMINAL), {
    timeoutMs: 10_000,
    intervalMs: 0,
  });
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const detail = await ctx.detail(callId);
  expect(detail.status).toBe(200);
  return { outcome: (await ctx.read(callId)).body, detail: detail.body, received: handler.at(ctx.path) };
}

const json = (body: string | Buffer): Reply => ({ status: 200, body, headers: { 'content-type': 'application/json' } });

describe.each(['instant', 'wait'])('a handler of a %s tool answering bytes Postgres cannot hold', (mode) => {
  it('JSON with NUL and lone surrogates: stored without them, sent once', async () => {
    const { outcome, detail, received } = await callAnswered(mode, () =>
      json('{"name":"a\\u0000b","odd\\u0000key":"\\ud800x","n":1}'),
    );
    expect(received).toHaveLength(1);
    expect(outcome).toMatchObject({
      status: 'succeeded',
      result: { name: 'a\uFFFDb', 'odd\uFFFDkey': '\uFFFDx', n: 1 },
    });
    expect(outcome.result_text).not.toContain('\u0000');
    expect(detail.attempts).toEqual([expect.objectContaining({ n: 1, outcome: 'success', http_status: 200 })]);
    expect(detail.attempts[0].response_excerpt).toBe('{"name":"a\\u0000b","odd\\u0000key":"\\ud800x","n":1}');
  });

  it('text that is not UTF-8, with raw NUL bytes: stored as text, the excerpt escaped', async () => {
    const body = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9, 0x00, 0xff]), Buffer.from(' ok')]);
    const { outcome, detail, received } = await callAnswered(mode, () => ({
      status: 200,
      body,
      headers: { 'content-type': 'text/plain' },
    }));
    expect(received).toHaveLength(1);
    expect(outcome).toEqual(
      expect.objectContaining({
        status: 'succeeded',
        result: 'caf\uFFFD\uFFFD\uFFFD ok',
        result_text: 'caf\uFFFD\uFFFD\uFFFD ok',
      }),
    );
    expect(detail.attempts).toEqual([
      expect.objectContaining({ n: 1, outcome: 'success', response_excerpt: 'caf\\xe9\\x00\\xff ok' }),
    ]);
  });

  it('an image and a gzip body: result_text says what came, sent once', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]),
      Buffer.alloc(20_000, 0xab),
    ]);
    const image = await callAnswered(mode, () => ({
      status: 200,
      body: png,
      headers: { 'content-type': 'image/png' },
    }));
    expect(image.received).toHaveLength(1);
    const described = '[binary answer of 20010 bytes (image/png) not passed: only text reaches the model]';
    expect(image.outcome).toMatchObject({ status: 'succeeded', result: described, result_text: described });
    expect(image.detail.attempts[0].response_excerpt).toMatch(/^\\x89PNG\r\n\\x1a\n\\x00\\x00\\xab/);

    const gzip = gzipSync(JSON.stringify({ big: 'x'.repeat(1000) }));
    const zipped = await callAnswered(mode, () => ({
      status: 200,
      body: gzip,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    }));
    expect(zipped.received).toHaveLength(1);
    expect(zipped.outcome.result_text).toBe(
      `[binary answer of ${gzip.length} bytes (application/json, gzip) not passed: only text reaches the model]`,
    );
  });
});

describe('a failed attempt whose answer Postgres cannot hold', () => {
  it('is recorded with an escaped excerpt and retried on the schedule: one webhook per attempt', async () => {
    const { outcome, detail, received } = await callAnswered('wait', (attempt) =>
      attempt === 1
        ? { status: 500, body: Buffer.from([0x00, 0xc3, 0x28, 0x62]), headers: { 'content-type': 'text/plain' } }
        : json('{"ok":true}'),
    );
    expect(received).toHaveLength(2);
    expect(outcome).toMatchObject({ status: 'succeeded', result: { ok: true } });
    expect(
      detail.attempts.map((a: { n: number; outcome: string; response_excerpt: string }) => [
        a.n,
        a.outcome,
        a.response_excerpt,
      ]),
    ).toEqual([
      [1, 'http_status', '\\x00\\xc3(b'],
      [2, 'success', '{"ok":true}'],
    ]);
  });
});

describe('an attempt already in flight', () => {
  it('is not made again by a duplicate job for it', async () => {
    const ctx = await setup('wait');
    handler.on(ctx.path, () => ({ ...json('{"ok":true}'), delayMs: 1000 }));
    const accepted = await ctx.call();
    const callId = accepted.body.call_id as string;
    await eventually(() => expect(handler.at(ctx.path)).toHaveLength(1), { timeoutMs: 5000, intervalMs: 20 });
    // What a retried or stalled job does: the same attempt, taken up again while it is in flight.
    const queue = stack.api.app.get(DeliveryQueue);
    const job = toolCallJob({ id: callId, appId: ctx.app.id, round: 1 }, 1);
    await queue.queue.add(DELIVER_JOB, job, { jobId: `${callId}-duplicate` });
    const finished = await ctx.read(callId, 5);
    expect(finished.body.status).toBe('succeeded');
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    expect(handler.at(ctx.path)).toHaveLength(1);
    expect((await ctx.detail(callId)).body.attempts).toHaveLength(1);
  });
});

describe('an MCP tool answering text Postgres cannot hold', () => {
  it('is recorded, success and tool error alike, and reads back', async () => {
    const server = await startOddTextServer();
    try {
      const ctx = await mcpAgent(stack.api, server.url, ['odd', 'odd-error']);
      const call = (tool: string) =>
        stack.api.request('POST', `${ctx.base}/tool-calls`, {
          token: ctx.agent,
          body: { tool: ctx.prefix + tool, dialog_id: 'd', arguments: {} },
        });
      const stored = ODD_TEXT.replace('\u0000', '\uFFFD').replace('\ud800', '\uFFFD');

      const ok = await call('odd');
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.status).toBe('succeeded');
      const read = await stack.api.request('GET', `${ctx.base}/tool-calls/${ok.body.call_id}`, { token: ctx.agent });
      expect(read.body).toMatchObject({
        status: 'succeeded',
        result_text: stored,
        result: { content: [{ type: 'text', text: stored }], structuredContent: { 'key\uFFFD': stored } },
      });

      const failed = await call('odd-error');
      expect(failed.status, failed.text).toBe(200);
      expect(failed.body).toMatchObject({ status: 'failed', error: { kind: 'tool_error' } });
      const detail = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${failed.body.call_id}`, {
        token: ctx.dev,
      });
      expect(detail.body).toMatchObject({
        status: 'failed',
        error: { kind: 'tool_error', message: stored },
        attempts: [{ n: 1, outcome: 'tool_error', error: stored }],
      });
    } finally {
      await server.stop();
    }
  });
});
