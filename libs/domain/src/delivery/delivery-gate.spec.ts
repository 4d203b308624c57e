import { describe, expect, it, vi } from 'vitest';
import { type Admission, DeliveryGate, type DeliverySlot } from './delivery-gate.js';

const WAITING_PER_SLOT = 20;
const gate = (perApp: number, inFlight = 50) =>
  new DeliveryGate({ inFlight, perApp, waitingPerSlot: WAITING_PER_SLOT });

/** Admits and records the admission once it is decided. */
function admit(g: DeliveryGate, app: string, id: string, dueAt: number, into: Map<string, Admission>) {
  void g.admit(app, id, dueAt).then((admission) => into.set(id, admission));
}
const settle = () => new Promise((resolve) => setImmediate(resolve));
const slot = (admission: Admission | undefined) => admission as DeliverySlot;
const ran = (admission: Admission | undefined) => typeof admission === 'object';

describe('DeliveryGate', () => {
  it('lets at most the cap of one app in flight, and other apps freely', async () => {
    const g = gate(2);
    const seen = new Map<string, Admission>();
    for (const id of ['1', '2', '3']) admit(g, 'a', id, 0, seen);
    admit(g, 'b', '4', 0, seen);
    await settle();
    expect(['1', '2', '3', '4'].map((id) => ran(seen.get(id)))).toEqual([true, true, false, true]);
    slot(seen.get('1')).release();
    await settle();
    expect(ran(seen.get('3'))).toBe(true);
  });

  it('counts a slot once however often it is released', async () => {
    const g = gate(1, 5);
    const first = slot(await g.admit('a', '1', 0));
    first.release();
    first.release();
    expect(g.inFlight).toBe(0);
    expect(g.take('a')).not.toBeNull();
    expect(g.take('a')).toBeNull();
  });

  it('gives a freed slot to the earliest-due waiting delivery, across apps under their cap', async () => {
    const g = gate(5, 1);
    const seen = new Map<string, Admission>();
    admit(g, 'a', 'running', 0, seen);
    admit(g, 'a', 'a-late', 300, seen);
    admit(g, 'b', 'b-mid', 200, seen);
    admit(g, 'a', 'a-early', 100, seen);
    await settle();
    const order: string[] = [];
    let current = 'running';
    for (let i = 0; i < 3; i += 1) {
      slot(seen.get(current)).release();
      await settle();
      current = ['a-early', 'b-mid', 'a-late'].find((id) => ran(seen.get(id)) && !order.includes(id)) ?? '';
      order.push(current);
    }
    expect(order).toEqual(['a-early', 'b-mid', 'a-late']);
  });

  it("sends an app's latest-due delivery back once the app fills its half of the waiting room", async () => {
    const g = gate(1, 1); // 1 slot, a waiting room of WAITING_PER_SLOT: half of it per app
    const half = WAITING_PER_SLOT / 2;
    const seen = new Map<string, Admission>();
    admit(g, 'a', 'running', 0, seen);
    for (let i = 0; i < half; i += 1) admit(g, 'a', `w${i}`, 100 + i, seen);
    admit(g, 'a', 'early', 50, seen);
    await settle();
    expect(seen.get(`w${half - 1}`)).toBe('later');
    expect(seen.get(`w${half - 2}`)).toBeUndefined();
    expect(seen.get('early')).toBeUndefined();
    expect(g.waiting).toBe(half);
    g.close();
    await settle();
    expect(seen.get('early')).toBe('closing');
    expect(await g.admit('b', 'after', 0)).toBe('closing');
    expect(g.take('b')).toBeNull();
  });

  it('takes a slot without waiting, or none when the process or the app is at its cap', () => {
    const g = new DeliveryGate({ inFlight: 3, perApp: 2, waitingPerSlot: 0 });
    const a1 = g.take('a');
    expect(a1).not.toBeNull();
    expect(g.take('a')).not.toBeNull();
    expect(g.take('a')).toBeNull();
    expect(g.take('b')).not.toBeNull();
    expect(g.take('c')).toBeNull();
    a1?.release();
    expect(g.take('c')).not.toBeNull();
  });

  it('makes a delivery of a slow app wait long and one of a fast app wait short, longer the longer its line', async () => {
    const g = gate(1);
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    try {
      for (let i = 0; i < 20; i += 1) {
        const slow = slot(await g.admit('slow', `s${i}`, 0));
        clock += 10_000;
        slow.release();
        const fast = slot(await g.admit('fast', `f${i}`, 0));
        clock += 2;
        fast.release();
      }
    } finally {
      now.mockRestore();
    }
    expect(g.waitMs('slow', 'x')).toBeGreaterThanOrEqual(3750);
    const first = g.waitMs('fast', 'y1');
    expect(first).toBeLessThan(20);
    for (let i = 0; i < 50; i += 1) g.waitMs('fast', `z${i}`);
    expect(g.waitMs('fast', 'y2')).toBeGreaterThan(first * 5);
  });
});
