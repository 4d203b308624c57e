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

/** A call stored just now with its attempt's deadline: 10 s timeout, 5 s margin. */
const attemptOf = (appId: string, storedAgoMs = 0) => ({
  call: {
    id: `call_${appId}`,
    appId,
    attemptTimeoutS: 10,
    attemptDeadline: new Date(Date.now() - storedAgoMs + 15_000),
  } as ToolCall,
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
    slots.giveBack('a');
    expect([slots.take('c'), slots.take('a')]).toEqual([true, false]);
    // Giving back for an app holding nothing gives back nothing.
    slots.giveBack('d');
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

  it('makes no attempt for a call stored too late for it, and gives its slot back', async () => {
    const { answers, deliver } = handlers();
    const slots = new FirstAttempts({ ...env, API_DELIVERY_CONCURRENCY: 1 }, deliver);
    slots.take('a');
    // Storing took 3 s of the 5 s margin: the attempt could outlast the stored deadline.
    expect(slots.start(attemptOf('a', 3000))).toBe(false);
    await tick();
    expect(answers).toHaveLength(0);
    expect(slots.take('a')).toBe(true);
    expect(slots.start(attemptOf('a', 2000))).toBe(true);
  });

  it('waits in a drain for the attempt of a call still being stored', async () => {
    const { answers, deliver } = handlers();
    const slots = new FirstAttempts(env, deliver);
    slots.take('a');
    const drained = slots.drain(1000);
    // Taken before the drain, stored after it began: still made, and waited for.
    slots.start(attemptOf('a'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(answers).toHaveLength(1);
    answers[0]();
    expect(await drained).toBe(0);
  });

  it('answers how many attempts a drain left in flight when its time ran out', async () => {
    const { deliver } = handlers();
    const slots = new FirstAttempts(env, deliver);
    slots.take('a');
    slots.start(attemptOf('a'));
    expect(await slots.drain(20)).toBe(1);
  });
});
