import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ENV, type Env } from '../../../../libs/config/src/index.js';
import { DomainError } from '../../../../libs/domain/src/index.js';
import { DeliveryQueue } from '../../../../libs/queue/src/index.js';
import { problem } from '../common/problem-details.filter.js';
import { TokenVerifier } from '../common/token-verifier.js';

/** The operator's queue dashboard; the developers' routes live under /v1/apps (apps/api/src/developers/). */
export const OPERATOR_DASHBOARD_PATH = '/admin/queues';
const COOKIE = 'toolgate_operator';

function cookieToken(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

/**
 * The operator's BullMQ dashboard at /admin/queues, for operator tokens only. A browser opens
 * `/admin/queues?token=<operator JWT>` once: the token moves into an HttpOnly cookie scoped to
 * /admin and the URL is cleaned; API clients send `Authorization: Bearer` as everywhere else.
 */
export async function mountOperatorQueueDashboard(app: NestFastifyApplication): Promise<void> {
  const env = app.get<Env>(ENV);
  const verifier = app.get(TokenVerifier);
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(OPERATOR_DASHBOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(app.get(DeliveryQueue).queue)], serverAdapter });

  const refuse = (reply: FastifyReply, status: number, code: string, detail: string) =>
    reply
      .code(status)
      .type('application/problem+json; charset=utf-8')
      .send(JSON.stringify(problem(status, code, detail)));

  const operatorOnly = async (req: FastifyRequest, reply: FastifyReply) => {
    const query = req.query as Record<string, unknown>;
    const fromQuery = typeof query.token === 'string' ? query.token : undefined;
    const token = fromQuery ?? cookieToken(req.headers.cookie);
    // A bearer header wins; then only it was verified, and the query token must not become the cookie.
    const fromQueryVerified = !req.headers.authorization && fromQuery !== undefined;
    const authorization = req.headers.authorization ?? (token ? `Bearer ${token}` : undefined);
    try {
      const claims = await verifier.verify(authorization);
      if (claims.role !== 'operator')
        return refuse(
          reply,
          403,
          'forbidden',
          `The queue dashboard needs an operator token; this one is a ${claims.role} token.`,
        );
    } catch (error) {
      if (error instanceof DomainError) {
        return refuse(
          reply,
          401,
          'unauthenticated',
          `${error.detail} Open ${OPERATOR_DASHBOARD_PATH}?token=<operator token> (npm run token -- operator).`,
        );
      }
      throw error;
    }
    if (fromQueryVerified) {
      const secure = env.PUBLIC_BASE_URL.startsWith('https:') ? '; Secure' : '';
      reply.header(
        'Set-Cookie',
        `${COOKIE}=${fromQuery}; HttpOnly; SameSite=Strict; Path=/admin; Max-Age=43200${secure}`,
      );
      return reply.redirect(OPERATOR_DASHBOARD_PATH, 303);
    }
  };
  await app.register(
    async (scope: FastifyInstance) => {
      scope.addHook('onRequest', operatorOnly);
      await scope.register(serverAdapter.registerPlugin());
    },
    { prefix: OPERATOR_DASHBOARD_PATH },
  );
}
