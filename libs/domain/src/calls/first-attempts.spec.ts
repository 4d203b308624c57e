import { describe, expect, it } from 'vitest';
import type { Env } from '../../../config/src/index.js';
import type { ToolCall } from '../../../persistence/src/index.js';
import type { DeliverAttempt, PreparedAttempt } from './deliver-attempt.use-case.js';
import { FirstAttempts } from './first-attempts.js';

const env = { API_DELIVERY_CONCURRENCY: 3, APP_DELIVERY_CONCURRENCY: 2 } as Env;

/** A DeliverAttempt whose handler answers when the test says, then records at once; `sent` lists the calls sent. */
function handlers() {
  const answers: (() => void)[] = [];
  const sent: string[] = [];
  const deliver = {
    execute: (attempt: PreparedAttempt) =>
      new Promise<ToolCall>((resolve) => {
        sent.push(attempt.call.id);
        answers.push(() => {
          attempt.handlerDone?.();
          resolve(attempt.call);
        });
      }),
  } as unknown as DeliverAttempt;
  return { answers, sent, deliver };
}

/** A call stored just now with its attempt's deadline: 10 s timeout, 5 s margin. */
const attemptOf = (appId: string, storedAgoMs = 0, id = `call_${appId}`) => ({
  call: {
    id,
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
  it('takes at most APP_DELIVERY_CONCURRENCY calls of one app and API_DELIVERY_CONCURRENCY in all, not yet attempted', () => {
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
    const { answers, sent, deliver } = handlers();
    const slots = new FirstAttempts({ ...env, API_DELIVERY_CONCURRENCY: 1 }, deliver);
    expect(slots.take('a')).toBe(true);
    slots.start(attemptOf('a'));
    // Taken while the one slot is in use: stored, its attempt waits for the slot.
    expect(slots.take('b')).toBe(true);
    expect(slots.take('c')).toBe(false);
    expect(slots.start(attemptOf('b'))).toBe(true);
    await tick();
    expect(sent).toEqual(['call_a']);
    answers[0]();
    await tick();
    expect(sent).toEqual(['call_a', 'call_b']);
    const drained = slots.drain(1000);
    answers[1]();
    expect(await drained).toBe(0);
    // Drained: no more calls are taken, even with slots free.
    expect(slots.take('b')).toBe(false);
  });

  it('runs at most APP_DELIVERY_CONCURRENCY attempts of one app and API_DELIVERY_CONCURRENCY in all', async () => {
    const { answers, sent, deliver } = handlers();
    const slots = new FirstAttempts(env, deliver);
    const stored = (appId: string, id: string) => {
      expect(slots.take(appId)).toBe(true);
      return slots.start(attemptOf(appId, 0, id));
    };
    stored('a', 'a1');
    stored('a', 'a2');
    // App A's two slots are in use: its next two calls are taken, stored, and wait; a fifth is queued.
    expect([stored('a', 'a3'), stored('a', 'a4')]).toEqual([true, true]);
    expect(slots.take('a')).toBe(false);
    // App B takes the API's third and last slot.
    stored('b', 'b1');
    await tick();
    expect(sent).toEqual(['a1', 'a2', 'b1']);
    // B's handler answers: the API has a slot, but app A has none; A's answers start A's waiting ones in order.
    answers[2]();
    await tick();
    expect(sent).toEqual(['a1', 'a2', 'b1']);
    answers[1]();
    await tick();
    expect(sent).toEqual(['a1', 'a2', 'b1', 'a3']);
    answers[0]();
    await tick();
    expect(sent).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  });

  it("leaves a waiting attempt to the reconciler once it could outlast its call's stored deadline", async () => {
    const { answers, sent, deliver } = handlers();
    const slots = new FirstAttempts({ ...env, APP_DELIVERY_CONCURRENCY: 1 }, deliver);
    slots.take('a');
    slots.start(attemptOf('a', 0, 'a1'));
    slots.take('a');
    // Stored 2.49 s ago: 10 ms of the 2.5 s it may wait (half the margin) are left.
    expect(slots.start(attemptOf('a', 2490, 'a2'))).toBe(true);
    expect(slots.take('a')).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 30));
    answers[0]();
    await tick();
    expect(sent).toEqual(['a1']);
    // Its place is given back: the app's next call is taken and attempted at once.
    expect(slots.take('a')).toBe(true);
    slots.start(attemptOf('a', 0, 'a3'));
    await tick();
    expect(sent).toEqual(['a1', 'a3']);
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
