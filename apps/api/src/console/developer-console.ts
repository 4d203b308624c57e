import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ENV, type Env } from '../../../../libs/config/src/index.js';
import { DomainError } from '../../../../libs/domain/src/index.js';
import { TokenVerifier } from '../common/token-verifier.js';
import { CONSOLE_CSS, CONSOLE_HTML, CONSOLE_JS, SIGN_IN_HTML } from './console-assets.js';
import { CONSOLE_COOKIE, cookieValue } from './console-cookie.js';

export const CONSOLE_PATH = '/console';

/** The page's own rules: its files only, from this origin; no frame of it elsewhere. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'",
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * The developer console at /console (decision 035). `GET /console?token=<developer token>` signs in: the token moves
 * into an HttpOnly, SameSite=Strict cookie and the answer is a 303 to /console, as /admin/queues does for operators.
 * Signed in, /console is a small page whose script calls the developer's JSON routes with that cookie (and the
 * console's header, console-cookie.ts); otherwise it is a sign-in page, answered 401.
 */
export function mountDeveloperConsole(app: NestFastifyApplication): void {
  const env = app.get<Env>(ENV);
  const verifier = app.get(TokenVerifier);
  const fastify = app.getHttpAdapter().getInstance();

  /** Why `token` does not open the console, or null when it is a valid developer token. */
  const refusal = async (token: string | undefined): Promise<string | null> => {
    if (!token) return 'Sign in with your developer token.';
    try {
      const claims = await verifier.verify(`Bearer ${token}`);
      return claims.role === 'developer'
        ? null
        : `The console needs a developer token; this one is a ${claims.role} token.`;
    } catch (error) {
      if (error instanceof DomainError) return error.detail;
      throw error;
    }
  };
  const signIn = (reply: FastifyReply, why: string) =>
    reply
      .code(401)
      .headers(PAGE_HEADERS)
      .type('text/html; charset=utf-8')
      .send(SIGN_IN_HTML.replace('<form', `<p class="why">${escapeHtml(why)}</p>\n<form`));

  fastify.get(CONSOLE_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Record<string, unknown>;
    if (typeof query.token === 'string') {
      const why = await refusal(query.token);
      if (why) return signIn(reply, why);
      const secure = env.PUBLIC_BASE_URL.startsWith('https:') ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${CONSOLE_COOKIE}=${query.token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200${secure}`,
      );
      return reply.redirect(CONSOLE_PATH, 303);
    }
    const why = await refusal(cookieValue(request.headers.cookie, CONSOLE_COOKIE));
    if (why) return signIn(reply, why);
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(CONSOLE_HTML);
  });
  fastify.get(`${CONSOLE_PATH}/console.js`, (_request, reply) =>
    reply.headers(PAGE_HEADERS).type('text/javascript; charset=utf-8').send(CONSOLE_JS),
  );
  fastify.get(`${CONSOLE_PATH}/console.css`, (_request, reply) =>
    reply.headers(PAGE_HEADERS).type('text/css; charset=utf-8').send(CONSOLE_CSS),
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
