// Managed Redis over TLS: a redis-server that only speaks TLS, its certificate signed by a CA of this test's own,
// given to Toolgate as REDIS_TLS_CA_FILE with a rediss:// REDIS_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { createProbeConnection, whenConnected } from '../libs/redis/src/index.js';
import { freePort } from '../scripts/local-services.js';
import { type ManagedRedis, describeCallsEndToEnd, singleRedis } from './support/calls-end-to-end.js';
import { type RedisServer, makeCertificates, scratchDir, startRedisServer } from './support/managed-redis.js';

let scratch: ReturnType<typeof scratchDir>;
let server: RedisServer;
let admin: Redis;
let managed: ManagedRedis;
let url: string;

beforeAll(async () => {
  scratch = scratchDir('redis-tls');
  const certificates = makeCertificates(scratch.dir);
  const port = await freePort();
  server = await startRedisServer(scratch.dir, [
    '--port',
    '0', // no plain-text port at all
    '--tls-port',
    String(port),
    '--tls-cert-file',
    certificates.certFile,
    '--tls-key-file',
    certificates.keyFile,
    '--tls-ca-cert-file',
    certificates.caFile,
    '--tls-auth-clients',
    'no',
  ]);
  url = `rediss://127.0.0.1:${port}`;
  admin = new Redis(url, { tls: { ca: readFileSync(certificates.caFile) } });
  managed = singleRedis({ REDIS_URL: url, REDIS_TLS_CA_FILE: certificates.caFile }, admin);
});

afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
  scratch?.remove();
});

describe('a Redis over TLS', () => {
  it('is refused when its certificate is not vouched for by the given CA (nor the system CAs)', async () => {
    const untrusted = createProbeConnection({ url });
    const refused = await new Promise<Error>((resolve) => untrusted.once('error', resolve));
    untrusted.disconnect();
    expect(refused.message).toMatch(/self[- ]signed certificate in certificate chain/);
    const trusted = createProbeConnection({ url, tlsCaFile: managed.env.REDIS_TLS_CA_FILE });
    await whenConnected(trusted, 5000);
    await expect(trusted.ping()).resolves.toBe('PONG');
    trusted.disconnect();
  });
});

describeCallsEndToEnd('Redis over TLS with a CA of its own', () => managed);
