// Tokens and a small JSON client for Toolgate's API (undici, keep-alive).
import { SignJWT } from 'jose';
import { Pool } from 'undici';

export async function token(secret, claims) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience('toolgate')
    .setIssuedAt()
    .setExpirationTime('6h')
    .sign(new TextEncoder().encode(secret));
}

export class ApiError extends Error {
  constructor(method, path, status, body) {
    super(`${method} ${path} → ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`.slice(0, 800));
    this.status = status;
    this.body = body;
  }
}

/** A JSON client bound to one origin. `connections` caps the sockets it opens. */
export function apiClient(origin, { connections = 128 } = {}) {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 });
  async function call(method, path, { token: bearer, body, expect, signal, headers = {}, timeoutMs = 60_000 } = {}) {
    const response = await pool.request({
      method,
      path,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await response.body.text();
    let parsed = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    if (expect !== undefined && ![expect].flat().includes(response.statusCode)) {
      throw new ApiError(method, path, response.statusCode, parsed);
    }
    return { status: response.statusCode, body: parsed };
  }
  return { call, pool, close: () => pool.close() };
}
