import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import { CENSOR } from '../../../../libs/observability/src/index.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;
/** Probes and scrapes: no request log line. */
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
 * Request logs on Fastify's own hook: one line when a request is answered, "request completed" (or "request errored"
 * for a 5xx) with its `request_id`, the method, path, status and time; credentials are redacted, bodies are never
 * logged. The lines of an internal error name the request too (ProblemDetailsFilter, AgentMcpServers); other lines
 * logged meanwhile name the call or app they are about, not the request: a context that follows every await
 * (`AsyncLocalStorage`) turns on Node 20's promise hooks for the whole process, 9-18 % of the API's CPU per
 * instant call here (bench/ab.mjs).
 */
export function logRequests(fastify: FastifyInstance, logger: pino.Logger): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const path = request.url.split('?')[0];
    const failed = reply.statusCode >= 500;
    const level = failed ? 'error' : 'info';
    if (!UNLOGGED.has(path) && logger.isLevelEnabled(level)) {
      const line = {
        request_id: request.id,
        req: {
          id: request.id,
          method: request.method,
          url: path,
          headers: {
            'user-agent': request.headers['user-agent'],
            authorization: request.headers.authorization ? CENSOR : undefined,
          },
        },
        res: { statusCode: reply.statusCode },
        responseTime: Math.round(reply.elapsedTime),
      };
      logger[level](line, failed ? 'request errored' : 'request completed');
    }
    done();
  });
}
