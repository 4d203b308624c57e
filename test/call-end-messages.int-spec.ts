import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalsOf } from '../libs/broadcast/src/index.js';
import { eventually } from './support/eventually.js';
import { agentWithHandlerTool } from './support/fixtures.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { WebhookHandler } from './support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;
let subscriber: Redis;
/** The call ids of every `finished` message this file's Toolgate published. */
const announced: string[] = [];

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack();
  subscriber = new Redis(stack.api.env.REDIS_URL ?? '');
  subscriber.on('message', (_channel: string, message: string) =>
    announced.push(...signalsOf(message).map(([id]) => id)),
  );
  await subscriber.subscribe(`${stack.api.env.QUEUE_PREFIX}:tool-call-finished`);
});
afterAll(async () => {
  subscriber.disconnect();
  await stack.close();
  await handler.stop();
});

describe('the end of a call on Redis', () => {
  it('is announced for a queued call, and not for an instant one (its answer is the first to carry its id)', async () => {
    const instant = await agentWithHandlerTool(stack.api, handler, { execution_mode: 'instant', retry_window: null });
    handler.on(instant.path, () => ({
      status: 200,
      body: '{"ok":true}',
      headers: { 'content-type': 'application/json' },
    }));
    const answered = await instant.call();
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('succeeded');

    // Announced after the instant call ended: once its id is heard, the instant call's would have been too.
    const queued = await agentWithHandlerTool(stack.api, handler, { execution_mode: 'background', retry_window: '5m' });
    handler.on(queued.path, () => ({ status: 200, body: '{}', headers: { 'content-type': 'application/json' } }));
    const accepted = await queued.call();
    expect(accepted.status).toBe(202);
    await eventually(() => expect(announced).toContain(accepted.body.call_id));
    expect(announced).not.toContain(answered.body.call_id);
    expect((await queued.read(accepted.body.call_id)).body.status).toBe('succeeded');
  });
});
