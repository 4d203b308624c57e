import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Env } from '../libs/config/src/index.js';
import { DeliveryQueue, callFinishedJob, toolCallJob } from '../libs/queue/src/index.js';

// The delivery queue adds its jobs itself in batches (no auto-pipelining on its connection): whether an add goes
// alone or in a batch with others, each job lands as it was asked for, with its id, its payload and its due time.
describe('the delivery queue', () => {
  const prefix = `tg_adds_${randomBytes(4).toString('hex')}`;
  let queue: DeliveryQueue;

  beforeAll(() => {
    queue = new DeliveryQueue({ REDIS_URL: inject('redisUrl'), QUEUE_PREFIX: prefix } as Env);
  });
  afterAll(async () => {
    await queue.queue.obliterate({ force: true });
    await queue.onModuleDestroy();
  });

  const call = (i: number) => ({ id: `call_${prefix}_${i}`, appId: 'app_1', round: 1 });

  it('adds the attempts queued together in one go, each with its own id, payload and delay', async () => {
    const bulk = vi.spyOn(queue.queue, 'addBulk');
    const single = vi.spyOn(queue.queue, 'add');
    const now = Date.now();
    const added = await Promise.all(
      [1, 2, 3, 4].map((i) => queue.enqueue(toolCallJob(call(i), i), new Date(now + i * 60_000))),
    );
    expect(added).toEqual([true, true, true, true]);
    expect(bulk).toHaveBeenCalledTimes(1); // one round trip for the four
    expect(bulk.mock.calls[0][0]).toHaveLength(4);
    expect(single).not.toHaveBeenCalled();
    bulk.mockRestore();
    single.mockRestore();
    for (const i of [1, 2, 3, 4]) {
      const job = await queue.queue.getJob(`${call(i).id}-r1-a${i}`);
      expect(job?.name).toBe('deliver');
      expect(job?.data).toEqual({
        kind: 'tool_call',
        id: call(i).id,
        round: 1,
        n: i,
        lane: { kind: 'app', appId: 'app_1' },
      });
      expect(job?.opts.delay).toBeGreaterThan(i * 60_000 - 5_000);
      expect(job?.opts.delay).toBeLessThanOrEqual(i * 60_000);
      expect(await job?.getState()).toBe('delayed');
    }
  });

  it('adds a lone attempt due now as a waiting job, and the same attempt twice as one job', async () => {
    expect(await queue.enqueue(toolCallJob(call(9), 1))).toBe(true);
    expect(await queue.enqueue(toolCallJob(call(9), 1))).toBe(true);
    const job = await queue.queue.getJob(`${call(9).id}-r1-a1`);
    expect(await job?.getState()).toBe('waiting');
    expect(await queue.queue.getWaitingCount()).toBe(1);
  });

  it('reports an attempt it could not queue (Redis away) as left to the reconciler', async () => {
    const away = new DeliveryQueue({ REDIS_URL: 'redis://127.0.0.1:1', QUEUE_PREFIX: prefix } as Env);
    try {
      const results = await Promise.all([1, 2].map((i) => away.enqueue(toolCallJob(call(20 + i), 1))));
      expect(results).toEqual([false, false]);
    } finally {
      await away.onModuleDestroy();
    }
  });

  it("adds an event's attempt as a delivery of its own kind, in its project's lane, never in a call's place", async () => {
    const id = `${prefix}_same`;
    expect(await queue.enqueue(toolCallJob({ id, appId: 'app_1', round: 1 }, 1))).toBe(true);
    expect(await queue.enqueue(callFinishedJob({ id, projectId: 'p1' }, 1))).toBe(true);
    const call = await queue.queue.getJob(`${id}-r1-a1`);
    const event = await queue.queue.getJob(`event-${id}-r1-a1`);
    expect(call?.data).toMatchObject({ kind: 'tool_call', lane: { kind: 'app', appId: 'app_1' } });
    expect(event?.data).toEqual({
      kind: 'tool_call.finished',
      id,
      round: 1,
      n: 1,
      lane: { kind: 'project-events', projectId: 'p1' },
    });
  });
});
