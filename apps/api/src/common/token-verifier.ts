import { hash } from 'node:crypto';
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

/** How long a token check waits for the key set at AUTH_JWKS_URL. */
const JWKS_TIMEOUT_MS = 3000;

/** The key set could not be fetched or used: no fault of the token. */
class KeySetUnavailableError extends Error {}

/** Errors of the key lookup that the token caused (no key for its kid or alg); anything else is the key set's. */
function isTokensFault(error: unknown): boolean {
  return (
    error instanceof joseErrors.JWKSNoMatchingKey ||
    error instanceof joseErrors.JWKSMultipleMatchingKeys ||
    error instanceof joseErrors.JOSENotSupported ||
    error instanceof joseErrors.JOSEAlgNotAllowed
  );
}

/** The JWKS key lookup, with a failure to fetch the set (down, slow, an error answer) told apart from a bad token. */
function remoteKeySet(url: string): JWTVerifyGetKey {
  const keys = createRemoteJWKSet(new URL(url), { timeoutDuration: JWKS_TIMEOUT_MS });
  return async (header, token) => {
    try {
      return await keys(header, token);
    } catch (error) {
      if (isTokensFault(error)) throw error;
      throw new KeySetUnavailableError((error as Error).message);
    }
  };
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
      this.key = remoteKeySet(env.AUTH_JWKS_URL);
      this.algorithms = ['RS256', 'ES256'];
    } else {
      this.key = new TextEncoder().encode(env.AUTH_JWT_SECRET ?? DEVELOPMENT_JWT_SECRET);
      this.algorithms = ['HS256'];
    }
  }

  async verify(authorization: string | undefined): Promise<AuthClaims> {
    const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(authorization ?? '');
    if (!match)
      throw unauthenticated('Send a token as "Authorization: Bearer <JWT>" (npm run token prints one for local use).');
    const cacheKey = hash('sha256', match[1], 'base64'); // one call: half createHash's cost
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
      if (error instanceof KeySetUnavailableError) {
        const detail =
          'Tokens cannot be checked right now: the key set at AUTH_JWKS_URL is not reachable. Retry in a few seconds.';
        throw new DomainError(ErrorCode.Unavailable, detail);
      }
      if (error instanceof joseErrors.JWTExpired) throw unauthenticated('The token has expired: get a new one.');
      if (error instanceof joseErrors.JWTClaimValidationFailed) {
        const why = error.reason === 'missing' ? 'it is missing' : `expected aud "${TOKEN_AUDIENCE}"`;
        throw unauthenticated(`The token's "${error.claim}" claim is not accepted: ${why}.`);
      }
      throw unauthenticated('The token is not valid: its signature, algorithm or format was refused.');
    }
    const claims = ClaimsSchema.safeParse(payload);
    if (!claims.success) {
      throw unauthenticated(
        'The token lacks the claims of its role: developer needs sub, project needs project_id, agent needs project_id and agent_id.',
      );
    }
    this.remember(cacheKey, claims.data, (payload.exp as number) * 1000);
    return claims.data;
  }

  private remember(cacheKey: string, claims: AuthClaims, expiresAtMs: number): void {
    if (this.verified.size >= VERIFIED_TOKENS_CACHED) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(cacheKey, { claims, expiresAtMs });
  }
}
