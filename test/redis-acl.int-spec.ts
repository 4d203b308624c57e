// Managed Redis with ACL users: the default user is off, Toolgate's user has a password (with characters a URL must
// escape) and may touch only keys and channels under its prefix. Every connection Toolgate opens authenticates as it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createProbeConnection } from '../libs/redis/src/index.js';
import { freePort } from '../scripts/local-services.js';
import { type ManagedRedis, describeCallsEndToEnd, singleRedis } from './support/calls-end-to-end.js';
import { type RedisServer, scratchDir, startRedisServer } from './support/managed-redis.js';

const PREFIX = 'tg_acl';
const PASSWORD = 'p@ss:w/rd#%1';
let scratch: ReturnType<typeof scratchDir>;
let server: RedisServer;
let admin: Redis;
let managed: ManagedRedis;
let port: number;

beforeAll(async () => {
  scratch = scratchDir('redis-acl');
  port = await freePort();
  // Each rule its own argument: redis-server quotes an argument holding a space as one token.
  server = await startRedisServer(scratch.dir, [
    ...['--port', String(port)],
    ...['--user', 'default', 'off'],
    ...['--user', 'admin', 'on', '>admin-secret', '~*', '&*', '+@all'],
    ...['--user', 'toolgate', 'on', `>${PASSWORD}`, `~${PREFIX}:*`, `&${PREFIX}:*`, '+@all', '-@dangerous', '+info'],
  ]);
  admin = new Redis({ port, host: '127.0.0.1', username: 'admin', password: 'admin-secret', connectionName: 'admin' });
  managed = singleRedis(
    {
      REDIS_URL: `redis://toolgate:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`,
      QUEUE_PREFIX: PREFIX,
    },
    admin,
  );
});

afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
  scratch?.remove();
});

describe('a Redis whose default user is off', () => {
  it('refuses a wrong password', async () => {
    const probe = createProbeConnection(`redis://toolgate:wrong@127.0.0.1:${port}`);
    const refused = await new Promise<Error>((resolve) => probe.once('error', resolve));
    probe.disconnect();
    expect(refused.message).toMatch(/WRONGPASS/);
  });
});

describeCallsEndToEnd('Redis with an ACL user and password', () => managed, {
  'every connection Toolgate opened (queue, worker, pub/sub, counters, probe) authenticated as its user': async () => {
    const clients = String(await admin.client('LIST'))
      .trim()
      .split('\n')
      .filter((line) => !/ name=admin /.test(line));
    // The API's two replicas and the worker, each with its queue, probe, publisher and subscribers, and BullMQ's own.
    expect(clients.length).toBeGreaterThanOrEqual(6);
    for (const line of clients) expect(line).toMatch(/ user=toolgate /);
  },
});
