import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { DEVELOPMENT_JWT_SECRET, ENV, type Env } from '../../../../libs/config/src/index.js';
import { DomainError, ErrorCode } from '../../../../libs/domain/src/index.js';

export const TOKEN_AUDIENCE = 'toolgate';

const ClaimsSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('developer'), sub: z.string().min(1).max(200) }),
  z.object({ role: z.literal('project'), project_id: z.string().min(1).max(200) }),
  z.object({ role: z.literal('agent'), project_id: z.string().min(1).max(200), agent_id: z.string().min(1).max(200) }),
  z.object({ role: z.literal('operator') }),
]);

export type AuthClaims = z.output<typeof ClaimsSchema>;
export type Role = AuthClaims['role'];

function unauthenticated(detail: string): DomainError {
  return new DomainError(ErrorCode.Unauthenticated, detail);
}

/** Tokens remembered as verified; past it the least recently used is forgotten. */
const VERIFIED_TOKENS_CACHED = 10_000;

/**
 * Verifies bearer tokens: HS256 with AUTH_JWT_SECRET, or RS256/ES256 from AUTH_JWKS_URL; `aud` toolgate, `exp`
 * required. A verified token is remembered (by its SHA-256) until its `exp`, so jose runs once per token, not per
 * request (WebCrypto also queues on libuv's thread pool).
 */
@Injectable()
export class TokenVerifier {
  private readonly key: Uint8Array | JWTVerifyGetKey;
  private readonly algorithms: string[];
  private readonly verified = new Map<string, { claims: AuthClaims; expiresAtMs: number }>();

  constructor(@Inject(ENV) env: Env) {
    if (env.AUTH_JWKS_URL) {
      this.key = createRemoteJWKSet(new URL(env.AUTH_JWKS_URL));
      this.algorithms = ['RS256', 'ES256'];
    } else {
      this.key = new TextEncoder().encode(env.AUTH_JWT_SECRET ?? DEVELOPMENT_JWT_SECRET);
      this.algorithms = ['HS256'];
    }
  }

  async verify(authorization: string | undefined): Promise<AuthClaims> {
    const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(authorization ?? '');
    if (!match) throw unauthenticated('Send a token as "Authorization: Bearer <JWT>" (npm run token prints one for local use).');
    const cacheKey = createHash('sha256').update(match[1]).digest('base64');
    const known = this.verified.get(cacheKey);
    if (known && known.expiresAtMs > Date.now()) {
      this.verified.delete(cacheKey); // most recently used last
      this.verified.set(cacheKey, known);
      return known.claims;
    }
    if (known) this.verified.delete(cacheKey);
    let payload: { exp?: number };
    try {
      ({ payload } = await jwtVerify(match[1], this.key as Uint8Array, {
        audience: TOKEN_AUDIENCE,
        algorithms: this.algorithms,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw unauthenticated('The token has expired: get a new one.');
      if (error instanceof joseErrors.JWTClaimValidationFailed) {
        throw unauthenticated(`The token's "${error.claim}" claim is not accepted: ${error.reason === 'missing' ? 'it is missing' : `expected aud "${TOKEN_AUDIENCE}"`}.`);
      }
      throw unauthenticated('The token is not valid: its signature, algorithm or format was refused.');
    }
    const claims = ClaimsSchema.safeParse(payload);
    if (!claims.success) {
      throw unauthenticated('The token lacks the claims of its role: developer needs sub, project needs project_id, agent needs project_id and agent_id.');
    }
    this.remember(cacheKey, claims.data, (payload.exp as number) * 1000);
    return claims.data;
  }

  private remember(cacheKey: string, claims: AuthClaims, expiresAtMs: number): void {
    if (this.verified.size >= VERIFIED_TOKENS_CACHED) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(cacheKey, { claims, expiresAtMs });
  }
}
