import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pino from 'pino';
import { developmentDefaultsInUse, loadEnvOrExit } from '../../../libs/config/src/index.js';
import { JsonLogger, pinoOptions } from '../../../libs/observability/src/index.js';
import { WorkerModule } from './worker.module.js';

const env = loadEnvOrExit();
const logger = new JsonLogger(pino(pinoOptions(env, 'worker')));
for (const warning of developmentDefaultsInUse(env)) logger.warn(warning, 'Configuration');
try {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(env), { bufferLogs: true, abortOnError: false });
  app.useLogger(logger);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.init();
  new Logger('Worker').log('Toolgate worker started');
} catch (error) {
  logger.fatal(`Toolgate worker could not start: ${(error as Error).message}`, 'Worker');
  process.exit(1);
}
