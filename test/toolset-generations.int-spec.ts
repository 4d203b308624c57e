// The per-agent generation that keeps every API replica's toolset cache fresh: read from what the replica heard on
// its subscription (no Redis round trip per call), and never stale across a lost connection.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { ToolsetGenerations } from '../libs/broadcast/src/index.js';
import { parseEnv } from '../libs/config/src/index.js';
import { eventually } from './support/eventually.js';

const env = parseEnv({ REDIS_URL: inject('redisUrl'), QUEUE_PREFIX: `tg-gen-${randomBytes(4).toString('hex')}` });
const a = new ToolsetGenerations(env);
const b = new ToolsetGenerations(env);
const admin = new Redis(inject('redisUrl'));
afterAll(() => {
  a.onModuleDestroy();
  b.onModuleDestroy();
  admin.disconnect();
});

describe('toolset generations', () => {
  it('change on every replica when one bumps, without a Redis read per call, and after a lost connection', async () => {
    const first = await b.current('p1/agent');
    expect(await b.current('p1/agent')).toBe(first);
    const reads = vi.spyOn(Redis.prototype, 'get');
    for (let i = 0; i < 20; i += 1) await b.current('p1/agent');
    expect(reads).not.toHaveBeenCalled(); // heard, not read
    reads.mockRestore();

    await a.bump(['p1/agent']);
    await eventually(async () => expect(await b.current('p1/agent')).not.toBe(first));
    const second = await b.current('p1/agent');
    expect(await b.current('p1/other')).toBe(first.replace(/\.\d+$/, '.0'));

    // B's subscription is cut; a bump meanwhile is not heard, yet B never answers the generation it had.
    const clients = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')).split('\n');
    const ours = clients.filter((line) => line.includes(` name=${env.QUEUE_PREFIX}:toolset-generations `));
    expect(ours).toHaveLength(1); // B's (A never read, so never subscribed)
    await admin.client('KILL', 'ID', /\bid=(\d+)/.exec(ours[0])?.[1] ?? '');
    await a.bump(['p1/agent']);
    await eventually(async () => {
      const now = await b.current('p1/agent');
      expect(now).not.toBe(second);
      expect(now).toMatch(/^e\d+\.0$/); // resubscribed: a new epoch, every cached toolset rebuilt once
    });
  });
});
