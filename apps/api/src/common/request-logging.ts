import { RequestMethod } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Params } from 'nestjs-pino';
import type { Env } from '../../../../libs/config/src/index.js';
import { logDestination, pinoOptions } from '../../../../libs/observability/src/index.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;
/** Probes and scrapes: no request log line (the middleware sees the path in `originalUrl`). */
const UNLOGGED = new Set(['/health/live', '/health/ready', '/metrics']);

/** The request's id: the caller's `X-Request-Id` when sane, else a new one (the HTTP server's `genReqId`). */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Echoes the request id on every answer, also those written to the Node response directly (MCP). */
export function echoRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('X-Request-Id', request.id);
    done();
  });
}

/**
 * Request logs (pino-http; JSON, or pretty at a terminal): every line logged while a request is handled carries its
 * `request_id` (requestIdOf, echoed back); headers that carry credentials are redacted; bodies are never logged.
 */
export function requestLogging(env: Env): Params {
  const options = {
    ...pinoOptions(env, 'api'),
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'request_id' },
    autoLogging: {
      ignore: (req: IncomingMessage & { originalUrl?: string }) => UNLOGGED.has(req.originalUrl ?? req.url ?? ''),
    },
    serializers: {
      req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
        id: req.id,
        method: req.method,
        url: req.url?.split('?')[0],
        headers: {
          'user-agent': req.headers['user-agent'],
          authorization: req.headers.authorization ? '[Redacted]' : undefined,
        },
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  };
  const destination = logDestination(env);
  // Every route: nestjs-pino's default path (`{/*splat}`) matches nothing under Fastify's middleware layer.
  const forRoutes = [{ path: '{*path}', method: RequestMethod.ALL }];
  return { pinoHttp: destination ? [options, destination] : options, forRoutes };
}
