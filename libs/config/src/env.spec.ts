import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { developmentDefaultsInUse, parseEnv } from './env.js';

describe('parseEnv', () => {
  it('applies the documented defaults to an empty environment', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      ALLOW_PRIVATE_NETWORK: false,
      RETRY_TIME_SCALE: 1,
      WORKER_CONCURRENCY: 50,
      CALL_RETENTION_DAYS: 30,
      PUBLIC_BASE_URL: 'http://localhost:3000',
      // below the 60 s common MCP clients wait before they cancel
      MCP_WAIT_DEADLINE_S: 50,
    });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(developmentDefaultsInUse(env)).toHaveLength(2);
  });

  it('derives PUBLIC_BASE_URL from PORT and strips a trailing slash when given', () => {
    expect(parseEnv({ PORT: '8080' }).PUBLIC_BASE_URL).toBe('http://localhost:8080');
    expect(parseEnv({ PUBLIC_BASE_URL: 'https://tools.example.com/' }).PUBLIC_BASE_URL).toBe(
      'https://tools.example.com',
    );
  });

  it('parses booleans and numbers', () => {
    const env = parseEnv({ ALLOW_PRIVATE_NETWORK: 'true', RETRY_TIME_SCALE: '0.01', WORKER_CONCURRENCY: '5' });
    expect(env.ALLOW_PRIVATE_NETWORK).toBe(true);
    expect(env.RETRY_TIME_SCALE).toBe(0.01);
    expect(env.WORKER_CONCURRENCY).toBe(5);
  });

  it.each([
    ['PORT', 'eighty'],
    ['RETRY_TIME_SCALE', '0'],
    ['ALLOW_PRIVATE_NETWORK', 'yes'],
    ['WORKER_CONCURRENCY', '0'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['REDIS_URL', 'not a url'],
    ['AUTH_JWT_SECRET', 'short'],
    ['SECRETS_KEYS', 'k1:c2hvcnQ='],
    ['SECRETS_KEYS', 'no-colon-here'],
    ['DNS_SERVERS', 'dns.example.com:53'],
    ['DNS_TIMEOUT_MS', '10'],
    ['CALL_RETENTION_DAYS', '0'],
    ['CALL_RETENTION_DAYS', '1.5'],
    ['REDIS_TLS_CA_FILE', '/nonexistent/ca.pem'],
    ['REDIS_TLS_CA_FILE', '/etc/hostname'],
    ['REDIS_CLUSTER', 'yes'],
    ['QUEUE_PREFIX', '{a}{b}'],
    ['QUEUE_PREFIX', 'with space'],
  ])('refuses a bad %s and names it', (name, value) => {
    expect(() => parseEnv({ [name]: value })).toThrow(new RegExp(`^Invalid configuration:\\n  ${name}: `));
  });

  it('hash-tags the default queue prefix only on a Redis Cluster, and refuses a prefix without a tag there', () => {
    expect(parseEnv({}).QUEUE_PREFIX).toBe('toolgate');
    expect(parseEnv({ REDIS_CLUSTER: 'true' }).QUEUE_PREFIX).toBe('{toolgate}');
    expect(parseEnv({ REDIS_CLUSTER: 'true', QUEUE_PREFIX: 'eu:{toolgate}' }).QUEUE_PREFIX).toBe('eu:{toolgate}');
    expect(parseEnv({ QUEUE_PREFIX: '{toolgate}' }).QUEUE_PREFIX).toBe('{toolgate}');
    expect(() => parseEnv({ REDIS_CLUSTER: 'true', QUEUE_PREFIX: 'toolgate' })).toThrow(
      /QUEUE_PREFIX: needs a hash tag with REDIS_CLUSTER=true \(e.g. \{toolgate\}\)/,
    );
  });

  it('takes a CA file of PEM certificates for a rediss:// URL only', () => {
    const caFile = join(mkdtempSync(join(tmpdir(), 'toolgate-env-')), 'ca.pem');
    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const tls = { REDIS_URL: 'rediss://redis.example.com:6380', REDIS_TLS_CA_FILE: caFile };
    expect(parseEnv(tls).REDIS_TLS_CA_FILE).toBe(caFile);
    expect(() => parseEnv({ ...tls, REDIS_URL: 'redis://redis.example.com:6379' })).toThrow(
      /REDIS_TLS_CA_FILE: needs a rediss:\/\/ REDIS_URL/,
    );
  });

  it("takes DNS servers as comma-separated host:port (the system resolver's when unset)", () => {
    expect(parseEnv({}).DNS_SERVERS).toBeUndefined();
    expect(parseEnv({ DNS_SERVERS: '127.0.0.53:5353, 10.0.0.2,[::1]:53' }).DNS_SERVERS).toEqual([
      '127.0.0.53:5353',
      '10.0.0.2',
      '[::1]:53',
    ]);
  });

  it('accepts several secret keys and refuses a repeated key id', () => {
    const key = Buffer.alloc(32, 1).toString('base64');
    expect(parseEnv({ SECRETS_KEYS: `new:${key},old:${key}` }).SECRETS_KEYS).toBe(`new:${key},old:${key}`);
    expect(() => parseEnv({ SECRETS_KEYS: `a:${key},a:${key}` })).toThrow(/appears twice/);
  });

  it('requires real secrets in production', () => {
    expect(() => parseEnv({ NODE_ENV: 'production' })).toThrow(
      /AUTH_JWT_SECRET or AUTH_JWKS_URL, SECRETS_KEYS: required/,
    );
  });
});
