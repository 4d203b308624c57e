import type { INestApplication } from '@nestjs/common';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, Response } from 'express';
import { ENV, type Env } from '../../../../../libs/config/src/index.js';
import { DomainError } from '../../../../../libs/domain/src/index.js';
import { DeliveryQueue } from '../../../../../libs/queue/src/index.js';
import { problem } from '../../common/problem-details.filter.js';
import { TokenVerifier } from '../../common/token-verifier.js';

export const DASHBOARD_PATH = '/admin/queues';
const COOKIE = 'toolgate_operator';

function cookieToken(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

/**
 * The BullMQ dashboard at /admin/queues, for operator tokens only. A browser opens
 * `/admin/queues?token=<operator JWT>` once: the token moves into an HttpOnly cookie scoped to
 * /admin and the URL is cleaned; API clients send `Authorization: Bearer` as everywhere else.
 */
export function mountQueueDashboard(app: INestApplication): void {
  const env = app.get<Env>(ENV);
  const verifier = app.get(TokenVerifier);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(app.get(DeliveryQueue).queue)], serverAdapter });

  const refuse = (res: Response, status: number, code: string, detail: string) =>
    res.status(status).type('application/problem+json').send(JSON.stringify(problem(status, code, detail)));

  const operatorOnly = async (req: Request, res: Response, next: NextFunction) => {
    const fromQuery = typeof req.query.token === 'string' ? req.query.token : undefined;
    const token = fromQuery ?? cookieToken(req.headers.cookie);
    // A bearer header wins; then only it was verified, and the query token must not become the cookie.
    const fromQueryVerified = !req.headers.authorization && fromQuery !== undefined;
    const authorization = req.headers.authorization ?? (token ? `Bearer ${token}` : undefined);
    try {
      const claims = await verifier.verify(authorization);
      if (claims.role !== 'operator') return refuse(res, 403, 'forbidden', `The queue dashboard needs an operator token; this one is a ${claims.role} token.`);
    } catch (error) {
      if (error instanceof DomainError) {
        return refuse(res, 401, 'unauthenticated', `${error.detail} Open ${DASHBOARD_PATH}?token=<operator token> (npm run token -- operator).`);
      }
      return next(error);
    }
    if (fromQueryVerified) {
      const secure = env.PUBLIC_BASE_URL.startsWith('https:') ? '; Secure' : '';
      res.setHeader('Set-Cookie', `${COOKIE}=${fromQuery}; HttpOnly; SameSite=Strict; Path=/admin; Max-Age=43200${secure}`);
      return res.redirect(303, DASHBOARD_PATH);
    }
    next();
  };
  app.use(DASHBOARD_PATH, operatorOnly, serverAdapter.getRouter());
}
