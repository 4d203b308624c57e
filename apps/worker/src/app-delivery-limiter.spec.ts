import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../../libs/config/src/index.js';
import { type Admission, AppDeliveryLimiter, PARKED_PER_SLOT } from './app-delivery-limiter.js';

const limiter = (cap: number, workers = 50) =>
  new AppDeliveryLimiter(parseEnv({ APP_DELIVERY_CONCURRENCY: String(cap), WORKER_CONCURRENCY: String(workers) }));

/** Admits and records the admission once it is decided. */
function admit(l: AppDeliveryLimiter, app: string, job: string, dueAt: number, into: Map<string, Admission>) {
  void l.admit(app, job, dueAt).then((admission) => into.set(job, admission));
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('AppDeliveryLimiter', () => {
  it('lets at most the cap of one app in flight, and other apps freely', async () => {
    const l = limiter(2);
    const seen = new Map<string, Admission>();
    for (const job of ['1', '2', '3']) admit(l, 'a', job, 0, seen);
    admit(l, 'b', '4', 0, seen);
    await settle();
    expect([seen.get('1'), seen.get('2'), seen.get('3'), seen.get('4')]).toEqual(['run', 'run', undefined, 'run']);
    l.release('a', 10);
    await settle();
    expect(seen.get('3')).toBe('run');
  });

  it('gives a freed slot to the earliest-due waiting job, across apps under their cap', async () => {
    const l = limiter(5, 1);
    const seen = new Map<string, Admission>();
    admit(l, 'a', 'running', 0, seen);
    admit(l, 'a', 'a-late', 300, seen);
    admit(l, 'b', 'b-mid', 200, seen);
    admit(l, 'a', 'a-early', 100, seen);
    await settle();
    const order: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      l.release(i === 0 ? 'a' : (order.at(-1) as string).slice(0, 1), 1);
      await settle();
      order.push(['a-early', 'b-mid', 'a-late'].find((job) => seen.get(job) === 'run' && !order.includes(job)) ?? '');
    }
    expect(order).toEqual(['a-early', 'b-mid', 'a-late']);
  });

  it("sends an app's latest-due job back once the app fills its half of the waiting room", async () => {
    const l = limiter(1, 1); // 1 slot, a waiting room of PARKED_PER_SLOT: half of it per app
    const half = PARKED_PER_SLOT / 2;
    const seen = new Map<string, Admission>();
    admit(l, 'a', 'running', 0, seen);
    for (let i = 0; i < half; i += 1) admit(l, 'a', `w${i}`, 100 + i, seen);
    admit(l, 'a', 'early', 50, seen);
    await settle();
    expect(seen.get(`w${half - 1}`)).toBe('later');
    expect(seen.get(`w${half - 2}`)).toBeUndefined();
    expect(seen.get('early')).toBeUndefined();
    expect(l.waiting).toBe(half);
    l.close();
    await settle();
    expect(seen.get('early')).toBe('closing');
    expect(await l.admit('b', 'after', 0)).toBe('closing');
  });

  it('makes a job of a slow app wait long and a job of a fast app wait short, longer the longer its line', async () => {
    const l = limiter(1);
    for (let i = 0; i < 20; i += 1) {
      await l.admit('slow', `s${i}`, 0);
      l.release('slow', 10_000);
      await l.admit('fast', `f${i}`, 0);
      l.release('fast', 2);
    }
    expect(l.waitMs('slow', 'x')).toBeGreaterThanOrEqual(3750);
    const first = l.waitMs('fast', 'y1');
    expect(first).toBeLessThan(20);
    for (let i = 0; i < 50; i += 1) l.waitMs('fast', `z${i}`);
    expect(l.waitMs('fast', 'y2')).toBeGreaterThan(first * 5);
  });
});
