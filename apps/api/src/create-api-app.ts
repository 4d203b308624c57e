import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication, NestExpressBodyParserOptionsFor } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import type { Env } from '../../../libs/config/src/index.js';
import { ApiModule } from './app.module.js';
import { mountQueueDashboard } from './admin/queues/queue-dashboard.js';
import { answerClientErrorsWithProblems } from './common/client-error-problem.js';
import { refuseInvalidUtf8 } from './common/utf8-body.js';

/** Builds the API application (routes, body limits, errors, /docs); the caller listens. */
export async function createApiApp(env: Env): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(env), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  // Nest reserves `verify` for its rawBody option (unused here) and hides it from the type; express.json takes it.
  app.useBodyParser('json', { limit: '1mb', verify: refuseInvalidUtf8 } as NestExpressBodyParserOptionsFor<'json'>);
  answerClientErrorsWithProblems(app.getHttpServer());
  app.disable('x-powered-by');
  app.set('etag', false);
  mountQueueDashboard(app);

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Toolgate')
      .setDescription('Give AI agents tools that third parties build. Errors are application/problem+json (RFC 9457).')
      .setVersion(process.env.npm_package_version ?? '0.1.0')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
  return app;
}
