// The counters every process shares for the limits across the fleet (FleetCounters): their Lua scripts against a
// real Redis, and what they answer when Redis is away.
import { Logger } from '@nestjs/common';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { FleetCounters } from '../libs/broadcast/src/index.js';
import { type Env, parseEnv } from '../libs/config/src/index.js';
import { freePort } from '../scripts/local-services.js';

const opened: FleetCounters[] = [];
let prefixes = 0;
/** An environment of a fresh key prefix: counters made of the same one are two processes' counters of one limit. */
function testEnv(redisUrl: string = inject('redisUrl')): Env {
  prefixes += 1;
  return parseEnv({ REDIS_URL: redisUrl, QUEUE_PREFIX: `counters-${process.pid}-${prefixes}` });
}
function counters(env = testEnv()): FleetCounters {
  const made = new FleetCounters(env);
  opened.push(made);
  return made;
}
afterAll(() => {
  for (const c of opened) c.onModuleDestroy();
});

describe('FleetCounters', () => {
  it('opens at most max_in_flight slots at once, across instances, and one more once one is released', async () => {
    const env = testEnv();
    const a = counters(env);
    const b = counters(env);
    const caps = { maxInFlight: 2, maxPerSecond: null };
    const first = await a.openSlot('app:x', caps, 10_000);
    const second = await b.openSlot('app:x', caps, 10_000);
    expect([first.kind, second.kind]).toEqual(['open', 'open']);
    const third = await a.openSlot('app:x', caps, 10_000);
    expect(third).toEqual({ kind: 'full', retryInMs: 0, by: 'in_flight' });
    expect(await a.lastHeldBack('app:x')).toBeInstanceOf(Date);
    expect((await a.openSlot('app:other', caps, 10_000)).kind).toBe('open');
    if (first.kind === 'open') first.release();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the release is not awaited
    expect((await b.openSlot('app:x', caps, 10_000)).kind).toBe('open');
  });

  it('frees the slot of a process that never released it once its lease ends', async () => {
    const c = counters();
    const caps = { maxInFlight: 1, maxPerSecond: null };
    expect((await c.openSlot('app:y', caps, 300)).kind).toBe('open');
    expect((await c.openSlot('app:y', caps, 300)).kind).toBe('full');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await c.openSlot('app:y', caps, 300)).kind).toBe('open');
  });

  it('starts at most max_per_second in any second (and a margin) and says when the next may start', async () => {
    const c = counters();
    const caps = { maxInFlight: null, maxPerSecond: 3 };
    for (let i = 0; i < 3; i += 1) expect((await c.openSlot('app:z', caps, 10_000)).kind).toBe('open');
    const full = await c.openSlot('app:z', caps, 10_000);
    expect(full.kind).toBe('full');
    if (full.kind !== 'full') return;
    expect(full.by).toBe('per_second');
    expect(full.retryInMs).toBeGreaterThan(900);
    expect(full.retryInMs).toBeLessThanOrEqual(1050);
    await new Promise((resolve) => setTimeout(resolve, full.retryInMs + 20));
    expect((await c.openSlot('app:z', caps, 10_000)).kind).toBe('open');
  });

  it('counts sliding windows all or none, naming the full one', async () => {
    const c = counters();
    const windows = [
      { name: 'agent:a', limit: 2 },
      { name: 'project', limit: 3 },
    ];
    expect((await c.takeWindows('project:p', windows, 60_000)).kind).toBe('taken');
    expect((await c.takeWindows('project:p', windows, 60_000)).kind).toBe('taken');
    const agentFull = await c.takeWindows('project:p', windows, 60_000);
    expect(agentFull).toMatchObject({ kind: 'full', window: 'agent:a' });
    if (agentFull.kind === 'full') expect(agentFull.retryInMs).toBeGreaterThan(59_000);
    // The refused call counted in neither window: another agent still has the project's third.
    const other = [{ name: 'agent:b', limit: 2 }, windows[1]];
    expect((await c.takeWindows('project:p', other, 60_000)).kind).toBe('taken');
    expect(await c.takeWindows('project:p', other, 60_000)).toMatchObject({ kind: 'full', window: 'project' });
    // A window with no limit is not counted.
    expect((await c.takeWindows('project:q', [{ name: 'project', limit: null }], 60_000)).kind).toBe('taken');
  });

  it('answers unchecked at once while Redis is away, and warns at most once a minute', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const c = counters(testEnv(`redis://127.0.0.1:${await freePort()}`));
      const started = performance.now();
      const caps = { maxInFlight: 1, maxPerSecond: 1 };
      expect(await c.openSlot('app:w', caps, 1000)).toEqual({ kind: 'unchecked' });
      expect(await c.openSlot('app:w', caps, 1000)).toEqual({ kind: 'unchecked' });
      expect(await c.takeWindows('project:w', [{ name: 'project', limit: 1 }], 60_000)).toEqual({ kind: 'unchecked' });
      expect(performance.now() - started).toBeLessThan(1000);
      const warnings = warn.mock.calls.filter(([message]) => String(message).includes('limits are not enforced'));
      expect(warnings).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });
});
