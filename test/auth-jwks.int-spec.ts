import { createServer, type Server } from 'node:http';
import { type CryptoKey, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, startTestApi } from './support/test-api.js';

let jwks: Server;
let api: TestApi;
let privateKey: CryptoKey;
let otherKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair('ES256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwks = createServer((_, res) =>
    res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] })),
  );
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const { port } = jwks.address() as { port: number };
  api = await startTestApi({ AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`, AUTH_JWT_SECRET: '' });
});
afterAll(async () => {
  await api.close();
  jwks.close();
});

const sign = (key: CryptoKey, claims: Record<string, unknown>) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setAudience('toolgate')
    .setExpirationTime('5m')
    .sign(key);

describe('tokens verified with a JWKS URL', () => {
  it('accepts a token signed by a key of the set', async () => {
    const good = await api.request('GET', '/v1/apps', {
      token: await sign(privateKey, { role: 'developer', sub: 'dev_jwks' }),
    });
    expect(good.status).toBe(200);
  });

  it('refuses a token signed by a key outside the set', async () => {
    const forged = await api.request('GET', '/v1/apps', {
      token: await sign(otherKey, { role: 'developer', sub: 'dev_jwks' }),
    });
    expect(forged.status).toBe(401);
  });

  it('refuses an HS256 token signed with a shared secret', async () => {
    const hs256 = await new SignJWT({ role: 'developer', sub: 'd' })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience('toolgate')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('test-secret-of-at-least-32-characters-long'));
    expect((await api.request('GET', '/v1/apps', { token: hs256 })).status).toBe(401);
  });
});
