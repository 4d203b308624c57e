import { SignJWT } from 'jose';
import * as jose from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { parseEnv } from '../../../../libs/config/src/index.js';
import { TokenVerifier } from './token-verifier.js';

vi.mock('jose', async (importOriginal) => {
  const actual = await importOriginal<typeof import('jose')>();
  return { ...actual, jwtVerify: vi.fn(actual.jwtVerify) };
});

const secret = 'a-test-secret-of-at-least-32-characters!';
const sign = (claims: Record<string, string>, expiresAt: number) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience('toolgate')
    .setExpirationTime(expiresAt)
    .sign(new TextEncoder().encode(secret));

describe('TokenVerifier', () => {
  it('runs jose once per token, then answers from memory until the token expires', async () => {
    const verifier = new TokenVerifier(parseEnv({ AUTH_JWT_SECRET: secret }));
    const verify = vi.mocked(jose.jwtVerify);
    verify.mockClear();
    const token = await sign({ role: 'agent', project_id: 'p1', agent_id: 'a1' }, Math.floor(Date.now() / 1000) + 2);
    for (let i = 0; i < 5; i++) {
      expect(await verifier.verify(`Bearer ${token}`)).toEqual({ role: 'agent', project_id: 'p1', agent_id: 'a1' });
    }
    expect(verify).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await expect(verifier.verify(`Bearer ${token}`)).rejects.toThrow(/expired/);
  });

  it('remembers nothing it refused', async () => {
    const verifier = new TokenVerifier(parseEnv({ AUTH_JWT_SECRET: secret }));
    const token = await sign({ role: 'agent', project_id: 'p1' }, Math.floor(Date.now() / 1000) + 60);
    await expect(verifier.verify(`Bearer ${token}`)).rejects.toThrow(/claims of its role/);
    await expect(verifier.verify(`Bearer ${token}`)).rejects.toThrow(/claims of its role/);
    const forged = `${token.slice(0, -4)}AAAA`;
    await expect(verifier.verify(`Bearer ${forged}`)).rejects.toThrow(/not valid/);
  });
});
