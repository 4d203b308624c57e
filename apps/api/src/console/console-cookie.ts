import type { FastifyRequest } from 'fastify';

/** The developer console's cookie: the developer token, HttpOnly and SameSite=Strict (decision 035). */
export const CONSOLE_COOKIE = 'toolgate_console';
/** The header the console's own script sends: no cross-site form can, and no cross-origin script without CORS. */
export const CONSOLE_HEADER = 'x-toolgate-console';

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name && value.length > 0) return value.join('=');
  }
  return undefined;
}

/**
 * The console cookie as a bearer credential, for a developer route under /v1/apps only, and only when the request
 * carries the console's header (a cross-site request cannot send it): undefined otherwise.
 */
export function consoleAuthorization(request: Pick<FastifyRequest, 'headers' | 'url'>): string | undefined {
  if (request.headers[CONSOLE_HEADER] !== '1' || !request.url.startsWith('/v1/apps')) return undefined;
  const token = cookieValue(request.headers.cookie, CONSOLE_COOKIE);
  return token ? `Bearer ${token}` : undefined;
}
