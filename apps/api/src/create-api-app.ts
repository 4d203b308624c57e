import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import pino from 'pino';
import type { Env } from '../../../libs/config/src/index.js';
import { JsonLogger, logDestination, pinoOptions } from '../../../libs/observability/src/index.js';
import { ApiModule } from './app.module.js';
import { mountDeveloperConsole } from './console/developer-console.js';
import { mountOperatorQueueDashboard } from './operators/operator-queue-dashboard.js';
import { answerBadUrlWithProblem, answerClientErrorWithProblem } from './common/client-error-problem.js';
import { acceptJsonBodiesOnly } from './common/json-body.js';
import { drainOversizedBodies } from './common/oversized-bodies.js';
import { describeApi } from './common/openapi.js';
import { echoRequestId, logRequests, requestIdOf } from './common/request-logging.js';

/** Node's own HTTP server timeouts (Fastify's defaults differ): keep-alive 5 s, a whole request 300 s. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 300_000;

/** Builds the API application on Fastify (routes, body limits, errors, /docs); the caller listens. */
export async function createApiApp(env: Env): Promise<INestApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: 1024 * 1024,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    clientErrorHandler: answerClientErrorWithProblem,
    frameworkErrors: answerBadUrlWithProblem,
    // Ids in paths are checked by the routes (404 when unknown), not cut off at Fastify's 100 characters.
    routerOptions: { maxParamLength: 16 * 1024, ignoreTrailingSlash: true },
    return503OnClosing: false,
    genReqId: requestIdOf,
  });
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(env), adapter, {
    bodyParser: false,
    bufferLogs: true,
  });
  const logger = pino(pinoOptions(env, 'api'), logDestination(env));
  app.useLogger(new JsonLogger(logger));
  const fastify = app.getHttpAdapter().getInstance();
  echoRequestId(fastify);
  logRequests(fastify, logger);
  acceptJsonBodiesOnly(fastify);
  drainOversizedBodies(fastify);
  await mountOperatorQueueDashboard(app);
  mountDeveloperConsole(app);

  // Built on the first GET of /docs, /openapi.json or /openapi.yaml, then kept: an API never asked holds no document.
  SwaggerModule.setup('docs', app, () => describeApi(app, env.PUBLIC_BASE_URL), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
  });
  return app;
}
