import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadEnvOrExit, nestLogLevels } from '../../../libs/config/src/index.js';
import { WorkerModule } from './worker.module.js';

const env = loadEnvOrExit();
try {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(env), {
    logger: nestLogLevels(env),
    abortOnError: false,
  });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  new Logger('Worker').log('Toolgate worker started');
} catch (error) {
  console.error(`Toolgate worker: ${(error as Error).message}`);
  process.exit(1);
}
