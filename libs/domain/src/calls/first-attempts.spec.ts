import { describe, expect, it } from 'vitest';
import type { Env } from '../../../config/src/index.js';
import type { ToolCall } from '../../../persistence/src/index.js';
import type { DeliverAttempt, PreparedAttempt } from './deliver-attempt.use-case.js';
import { FirstAttempts } from './first-attempts.js';

const env = { API_DELIVERY_CONCURRENCY: 3, APP_DELIVERY_CONCURRENCY: 2 } as Env;

/** A DeliverAttempt whose handler answers when the test says, then records at once. */
function handlers() {
  const answers: (() => void)[] = [];
  const deliver = {
    execute: (attempt: PreparedAttempt) =>
      new Promise<ToolCall>((resolve) =>
        answers.push(() => {
          attempt.handlerDone?.();
          resolve(attempt.call);
        }),
      ),
  } as unknown as DeliverAttempt;
  return { answers, deliver };
}

const attemptOf = (appId: string) => ({
  call: { id: `call_${appId}`, appId } as ToolCall,
  app: {} as never,
  body: '{}',
  n: 1,
});
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FirstAttempts', () => {
  it('holds at most APP_DELIVERY_CONCURRENCY slots of one app and API_DELIVERY_CONCURRENCY in all', () => {
    const slots = new FirstAttempts(env, handlers().deliver);
    expect([slots.take('a'), slots.take('a'), slots.take('a')]).toEqual([true, true, false]);
    expect([slots.take('b'), slots.take('c')]).toEqual([true, false]);
    slots.release('a');
    expect([slots.take('c'), slots.take('a')]).toEqual([true, false]);
    // A release of an app holding nothing gives back nothing.
    slots.release('d');
    expect(slots.take('d')).toBe(false);
  });

  it('gives a slot back once the handler answered, and drains what is in flight', async () => {
    const { answers, deliver } = handlers();
    const slots = new FirstAttempts({ ...env, API_DELIVERY_CONCURRENCY: 1 }, deliver);
    expect(slots.take('a')).toBe(true);
    slots.start(attemptOf('a'));
    expect(slots.take('b')).toBe(false);
    await tick();
    expect(answers).toHaveLength(1);
    answers[0]();
    await tick();
    expect(slots.take('b')).toBe(true);
    slots.start(attemptOf('b'));
    await tick();
    const drained = slots.drain(1000);
    answers[1]();
    expect(await drained).toBe(0);
    // Drained: no more slots are taken, even free ones.
    expect(slots.take('b')).toBe(false);
  });

  it('answers how many attempts a drain left in flight when its time ran out', async () => {
    const { deliver } = handlers();
    const slots = new FirstAttempts(env, deliver);
    slots.take('a');
    slots.start(attemptOf('a'));
    expect(await slots.drain(20)).toBe(1);
  });
});
