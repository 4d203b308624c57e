// Tokens and a small JSON client for Toolgate's API (undici, keep-alive).
import { SignJWT } from 'jose';
import { Pool } from 'undici';

/**
 * @param {string} secret
 * @param {import('jose').JWTPayload} claims
 */
export async function token(secret, claims) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience('toolgate')
    .setIssuedAt()
    .setExpirationTime('6h')
    .sign(new TextEncoder().encode(secret));
}

export class ApiError extends Error {
  /**
   * @param {string} method
   * @param {string} path
   * @param {number} status
   * @param {unknown} body
   */
  constructor(method, path, status, body) {
    super(`${method} ${path} → ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`.slice(0, 800));
    this.status = status;
    this.body = body;
  }
}

/**
 * @typedef {object} CallOptions
 * @property {string} [token] the bearer token
 * @property {unknown} [body] sent as JSON
 * @property {number | number[]} [expect] the statuses expected: another throws an ApiError
 * @property {AbortSignal} [signal]
 * @property {Record<string, string>} [headers]
 * @property {number} [timeoutMs]
 */

/**
 * An answer of Toolgate's API: its body parsed as JSON (`any`: the caller's checks are the type check), else its text.
 * @typedef {{ status: number, body: any }} ApiAnswer
 */

/**
 * A JSON client bound to one origin. `connections` caps the sockets it opens.
 * @param {string} origin
 */
export function apiClient(origin, { connections = 128 } = {}) {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 });
  /**
   * @param {import('undici').Dispatcher.HttpMethod} method
   * @param {string} path
   * @param {CallOptions} [options]
   * @returns {Promise<ApiAnswer>}
   */
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
    /** @type {unknown} */
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
