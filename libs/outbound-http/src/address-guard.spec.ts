import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  BlockedAddressError,
  urlHostRefusal,
  blockedAddressReason,
  createGuardedAgent,
  guardedLookup,
} from './address-guard.js';

const ALLOWED = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '100.63.255.255', // just below CGNAT
  '100.128.0.0', // just above CGNAT
  '172.15.255.255', // just below 172.16/12
  '172.32.0.0', // just above 172.16/12
  '192.0.1.1',
  '198.17.255.255',
  '223.255.255.255', // last unicast before multicast
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8', // mapped public v4
  '2002:0808:0808::1', // 6to4 of 8.8.8.8
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
];

const BLOCKED: [string, string][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.1.2.3', 'private address 10.1.2.3'],
  ['100.64.0.1', 'CGNAT'],
  ['100.127.255.254', 'CGNAT'],
  ['127.0.0.1', 'loopback address 127.0.0.1'],
  ['127.255.0.9', 'loopback'],
  ['169.254.169.254', 'link-local address 169.254.169.254'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.0.0.8', 'IETF protocol assignment'],
  ['192.0.2.10', 'documentation'],
  ['192.88.99.1', '6to4 relay'],
  ['192.168.1.1', 'private'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.1', 'benchmarking'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback address ::1'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link-local'],
  ['fe80::1%lo', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fc00::1', 'unique local'],
  ['fd12:3456:789a::1', 'unique local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['100::1', 'discard'],
  ['2001::1', 'IETF special-purpose'], // Teredo
  ['2001:1ff::1', 'IETF special-purpose'],
  ['::ffff:127.0.0.1', 'loopback address 127.0.0.1'],
  ['::ffff:7f00:1', 'loopback address 127.0.0.1'],
  ['::ffff:10.0.0.1', 'private address 10.0.0.1'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::127.0.0.1', 'loopback address 127.0.0.1'], // IPv4-compatible
  ['64:ff9b::a00:1', 'private address 10.0.0.1'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['2002:c0a8:0101::1', 'private address 192.168.1.1'],
  ['2002:7f00:1::', 'loopback'],
  ['1::2:3:4:5:6:7', 'reserved'], // outside 2000::/3
  ['example.com', 'not an IP address'],
  ['', 'not an IP address'],
  ['127.1', 'not an IP address'],
  ['[::1]', 'not an IP address'],
  ['1.2.3.4.5', 'not an IP address'],
];

describe('blockedAddressReason', () => {
  it.each(ALLOWED)('allows %s', (ip) => {
    expect(blockedAddressReason(ip)).toBeNull();
  });

  it.each(BLOCKED)('refuses %s (%s)', (ip, reason) => {
    expect(blockedAddressReason(ip)).toContain(reason);
  });
});

/** guardedLookup as a promise: [addresses or address, family]. */
function lookupWith(allowPrivate: boolean, hostname: string, all: boolean) {
  return new Promise<[string | LookupAddress[], number | undefined]>((resolve, reject) =>
    guardedLookup(allowPrivate)(hostname, { all }, (err, address, family) =>
      err ? reject(err) : resolve([address, family]),
    ),
  );
}

describe('guardedLookup', () => {
  it.each([true, false])('refuses localhost unless private networks are allowed (all: %s)', async (all) => {
    const refused = lookupWith(false, 'localhost', all);
    await expect(refused).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(refused).rejects.toMatchObject({
      code: 'BLOCKED_ADDRESS',
      reason: 'loopback address 127.0.0.1',
      message: expect.stringMatching(
        /^host "localhost" resolves to a non-public address: .*ALLOW_PRIVATE_NETWORK=true/,
      ),
    });
    // what a name resolves to is not told: the message would be an internal DNS oracle
    await expect(refused).rejects.toSatisfy((error: Error) => !/127\.0\.0\.1|::1|loopback/.test(error.message));
  });

  it('hands back every address when all: true', async () => {
    const [addresses, family] = await lookupWith(true, 'localhost', true);
    expect(Array.isArray(addresses)).toBe(true);
    expect(addresses.length).toBeGreaterThan(0);
    expect(family).toBeUndefined();
  });

  it('hands back the first address and its family otherwise', async () => {
    const [address, family] = await lookupWith(true, 'localhost', false);
    expect(typeof address).toBe('string');
    expect(family).toBe(address === '::1' ? 6 : 4);
  });

  it('checks every address a name resolves to, not only the first', async () => {
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const refused = new Promise((res, rej) =>
      guardedLookup(false, resolve)('mixed.example', { all: true }, (err, a) => (err ? rej(err) : res(a))),
    );
    await expect(refused).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS', reason: 'private address 10.0.0.7' });
  });

  it('judges an IP literal without DNS', async () => {
    await expect(lookupWith(false, '10.0.0.5', false)).rejects.toMatchObject({
      code: 'BLOCKED_ADDRESS',
      message: expect.stringContaining('"10.0.0.5" is not public (private address 10.0.0.5)'),
    });
    expect(await lookupWith(false, '8.8.8.8', false)).toEqual(['8.8.8.8', 4]);
    expect(await lookupWith(false, '2606:4700:4700::1111', true)).toEqual([
      [{ address: '2606:4700:4700::1111', family: 6 }],
      undefined,
    ]);
  });
});

describe('urlHostRefusal', () => {
  it.each([
    'http://127.0.0.1:8080/x',
    'http://[::1]/',
    'https://[::ffff:7f00:1]/',
    'http://2130706433/',
    'http://169.254.169.254/latest',
  ])('refuses %s', (url) => {
    expect(urlHostRefusal(new URL(url), false)).toBeInstanceOf(BlockedAddressError);
    expect(urlHostRefusal(new URL(url), true)).toBeNull();
  });

  it.each(['https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/', 'https://example.com/hook', 'http://localhost/'])(
    'lets %s through',
    (url) => {
      // a name is judged later, when guardedLookup resolves it
      expect(urlHostRefusal(new URL(url), false)).toBeNull();
    },
  );
});

describe('createGuardedAgent', () => {
  it('never connects to a private address unless allowed', async () => {
    let received = 0;
    const server = createServer((_req, res) => {
      received++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const guarded = createGuardedAgent({ allowPrivate: false });
    const open = createGuardedAgent({ allowPrivate: true });
    try {
      // undici rejects with the lookup's error itself (not wrapped): the sender can check `code`
      const refused = request(`http://localhost:${port}/`, { dispatcher: guarded });
      await expect(refused).rejects.toBeInstanceOf(BlockedAddressError);
      await expect(refused).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS', host: 'localhost' });
      // an IP literal is refused at connect time too, whatever URL (a redirect's) it came from
      await expect(request(`http://127.0.0.1:${port}/`, { dispatcher: guarded })).rejects.toMatchObject({
        code: 'BLOCKED_ADDRESS',
        host: '127.0.0.1',
      });
      await expect(request(`http://[::ffff:127.0.0.1]:${port}/`, { dispatcher: guarded })).rejects.toMatchObject({
        code: 'BLOCKED_ADDRESS',
      });
      expect(received).toBe(0);

      const res = await request(`http://localhost:${port}/`, { dispatcher: open });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe('ok');
      expect(received).toBe(1);
    } finally {
      await Promise.all([guarded.close(), open.close()]);
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
