import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { AppLookups, HostResolver, TooManyLookupsError, addressesWithoutDns } from './host-resolver.js';

describe('addressesWithoutDns', () => {
  it('gives IP literals and localhost (c-ares reads no /etc/hosts), and nothing for other names', () => {
    expect(addressesWithoutDns('10.1.2.3')).toEqual([{ address: '10.1.2.3', family: 4 }]);
    expect(addressesWithoutDns('[::1]')).toEqual([{ address: '::1', family: 6 }]);
    expect(addressesWithoutDns('LocalHost')).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(addressesWithoutDns('api.localhost.')?.[0]?.address).toBe('127.0.0.1');
    expect(addressesWithoutDns('example.com')).toBeNull();
  });
});

/** A resolver whose lookups stay pending until settled by hand. */
function pendingResolver() {
  const pending = new Map<string, (addresses: LookupAddress[]) => void>();
  let calls = 0;
  const resolver = Object.assign(new HostResolver(), {
    resolve: (hostname: string) => {
      calls++;
      return new Promise<LookupAddress[]>((resolve) => pending.set(hostname, resolve));
    },
  });
  return { resolver, pending, calls: () => calls };
}

describe('AppLookups', () => {
  it('has at most `limit` names in flight; more fail at once, and a name in flight is looked up once', async () => {
    const { resolver, pending, calls } = pendingResolver();
    const lookups = new AppLookups(resolver, 2);
    const a = lookups.resolve('a.example');
    const again = lookups.resolve('A.example');
    void lookups.resolve('b.example');
    await expect(lookups.resolve('c.example')).rejects.toBeInstanceOf(TooManyLookupsError);
    await expect(lookups.resolve('c.example')).rejects.toMatchObject({
      code: 'EDNSBUSY',
      message: expect.stringMatching(/2 DNS lookups of this app's hosts are still unanswered/),
    });
    expect(calls()).toBe(2);
    expect(await lookups.resolve('127.0.0.1')).toEqual([{ address: '127.0.0.1', family: 4 }]); // literals need no slot
    pending.get('a.example')!([{ address: '192.0.2.1', family: 4 }]);
    expect(await a).toEqual(await again);
    const c = lookups.resolve('c.example'); // a slot is free again
    pending.get('c.example')!([{ address: '192.0.2.3', family: 4 }]);
    expect(await c).toEqual([{ address: '192.0.2.3', family: 4 }]);
  });
});
