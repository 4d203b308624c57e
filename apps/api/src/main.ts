// First: sets how V8 compiles WebAssembly before any module compiles it.
import '../../../libs/config/src/wasm-tiers.js';
import { Logger } from '@nestjs/common';
import type { Server } from 'node:http';
import { developmentDefaultsInUse, explainListenError, loadEnvOrExit } from '../../../libs/config/src/index.js';
import { FirstAttempts } from '../../../libs/domain/src/index.js';
import { logProcessWarnings, releaseHeapWhenIdle } from '../../../libs/observability/src/index.js';
import { createApiApp } from './create-api-app.js';

/** How long a stopping API waits for requests in flight (long-polls included) before it cuts them. */
const DRAIN_TIMEOUT_MS = 65_000;

const env = loadEnvOrExit();
const app = await createApiApp(env);
const logger = new Logger('Api');
logProcessWarnings(new Logger());
for (const warning of developmentDefaultsInUse(env)) new Logger('Configuration').warn(`WARNING: ${warning}`);
try {
  // Every interface, IPv4 and IPv6, as Node's own listen(port) does (Fastify would pick localhost only).
  await app.listen(env.PORT, '::');
} catch (error) {
  logger.fatal(`Toolgate API could not start: ${explainListenError(error, 'PORT', env.PORT).message}`);
  process.exit(1);
}
logger.log(`Toolgate API on ${env.PUBLIC_BASE_URL} (docs: ${env.PUBLIC_BASE_URL}/docs)`);
releaseHeapWhenIdle();

// SIGTERM: stop accepting, let requests in flight finish (an instant call records its attempt) and the first
// attempts of queued calls be recorded, then close the database and Redis. Nest's own hooks would close them first.
// SIGINT (Ctrl-C) and SIGHUP (the terminal closed) stop it the same way.
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: draining requests in flight`);
    // From now on queued calls go to the queue; the first attempts this API is making are recorded meanwhile.
    const firstAttempts = app.get(FirstAttempts).drain(DRAIN_TIMEOUT_MS);
    const server = app.getHttpServer() as Server;
    const cut = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
    // Keep-alive connections turn idle as their requests finish: close them as they do.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearTimeout(cut);
      clearInterval(idle);
      // The first attempts of queued calls this API started after their 202s: recorded before the pools close.
      void firstAttempts
        .then((left) => {
          if (left) logger.warn(`${left} first attempts still in flight: the reconciler queues their calls`);
        })
        .then(() => app.close())
        .catch(() => undefined) // the HTTP server is already closed
        .finally(() => {
          logger.log('stopped');
          process.exit(0);
        });
    });
    server.closeIdleConnections();
  });
}
