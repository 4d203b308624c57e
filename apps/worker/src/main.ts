// First: sets how V8 compiles WebAssembly before any module compiles it.
import '../../../libs/config/src/wasm-tiers.js';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pino from 'pino';
import { developmentDefaultsInUse, loadEnvOrExit } from '../../../libs/config/src/index.js';
import {
  JsonLogger,
  logDestination,
  logProcessWarnings,
  pinoOptions,
  releaseHeapWhenIdle,
} from '../../../libs/observability/src/index.js';
import { QueueConsumer } from './queue-consumer.js';
import { WorkerModule } from './worker.module.js';

const env = loadEnvOrExit();
const logger = new JsonLogger(pino(pinoOptions(env, 'worker'), logDestination(env)));
logProcessWarnings(logger);
for (const warning of developmentDefaultsInUse(env)) logger.warn(warning, 'Configuration');
let app;
try {
  app = await NestFactory.createApplicationContext(WorkerModule.forRoot(env), {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(logger);
  await app.init();
  new Logger('Worker').log('Toolgate worker started');
  releaseHeapWhenIdle();
} catch (error) {
  logger.fatal(`Toolgate worker could not start: ${(error as Error).message}`, 'Worker');
  process.exit(1);
}

// SIGTERM: take no new jobs, let the attempts in flight finish and be recorded, then close.
// Nest's own shutdown hooks would close the database first, under the running attempts.
// SIGINT (Ctrl-C) and SIGHUP (the terminal closed) stop it the same way.
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: finishing the attempts in flight`, 'Worker');
    void (async () => {
      await app.get(QueueConsumer).drain();
      await app.close();
      logger.log('stopped', 'Worker');
      process.exit(0);
    })();
  });
}
