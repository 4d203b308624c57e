import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Queue } from 'bullmq';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, fastify } from 'fastify';
import { ENV, type Env } from '../../../../libs/config/src/index.js';
import { DomainError, ErrorCode } from '../../../../libs/domain/src/index.js';
import { DeliveryQueue } from '../../../../libs/queue/src/index.js';
import { answerBadUrlWithProblem, sendProblem } from '../common/client-error-problem.js';
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
 *
 * The dashboard (bull-board, its views and static files: 9 MiB mounted alone) is loaded on the first request an
 * operator makes, into a Fastify instance of its own that the API's routes under /admin/queues hand the
 * request to: an API no operator opens never holds it.
 */
export async function mountOperatorQueueDashboard(app: NestFastifyApplication): Promise<void> {
  const env = app.get<Env>(ENV);
  const verifier = app.get(TokenVerifier);
  const queue = app.get(DeliveryQueue).queue;
  let dashboard: Promise<FastifyInstance> | undefined;
  const loaded = () =>
    (dashboard ??= loadDashboard(queue).catch((error: unknown) => {
      dashboard = undefined; // the next request tries again
      throw error;
    }));

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
        return sendProblem(
          reply,
          403,
          'forbidden',
          `The queue dashboard needs an operator token; this one is a ${claims.role} token.`,
        );
    } catch (error) {
      if (error instanceof DomainError) {
        return sendProblem(
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
  const handOver = async (req: FastifyRequest, reply: FastifyReply) => {
    // bull-board answers 500 to a NUL in a query value (it splits its own messages on NUL).
    if (/%00/.test(req.raw.url ?? '')) {
      return sendProblem(
        reply,
        400,
        ErrorCode.BadRequest,
        'The queue dashboard takes no NUL character (%00) in a URL.',
      );
    }
    const inner = await loaded();
    reply.hijack();
    inner.routing(req.raw, reply.raw);
  };
  await app.register(
    (scope: FastifyInstance, _options: unknown, done: () => void) => {
      scope.addHook('onRequest', operatorOnly);
      // Bodies stay unread: the dashboard's own instance reads them.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null, undefined));
      scope.all('/', handOver);
      scope.all('/*', handOver);
      done();
    },
    { prefix: OPERATOR_DASHBOARD_PATH },
  );
}

/** bull-board over the delivery queue, in a Fastify instance of its own (unknown paths: a problem+json 404). */
async function loadDashboard(queue: Queue): Promise<FastifyInstance> {
  const [{ createBullBoard }, { BullMQAdapter }, { FastifyAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/fastify'),
  ]);
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(OPERATOR_DASHBOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(queue)], serverAdapter });
  const inner = fastify({ routerOptions: { ignoreTrailingSlash: true }, frameworkErrors: answerBadUrlWithProblem });
  inner.setNotFoundHandler((request, reply) =>
    sendProblem(reply, 404, ErrorCode.NotFound, `The queue dashboard has no page ${request.url.split('?')[0]}.`),
  );
  await inner.register(serverAdapter.registerPlugin(), { prefix: OPERATOR_DASHBOARD_PATH });
  await inner.ready();
  return inner;
}
