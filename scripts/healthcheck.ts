// The image's HEALTHCHECK (a slim image has no curl): `node dist/scripts/healthcheck.js api|worker`.
// api: GET /health/ready on PORT, so a container counts as healthy only while it can serve (Postgres and Redis
// answer); worker: GET /health/live on WORKER_METRICS_PORT. Exits 0 on a 200, 1 otherwise, 2 when it cannot check.
// It reads the two variables itself (the defaults of libs/config/src/env.ts): loading the configuration would cost
// every probe the startup of zod.
import { request } from 'node:http';

/** Below Docker's own `--timeout` (the Dockerfile's 5 s), so the probe says why it failed. */
const TIMEOUT_MS = 4000;

interface Probe {
  host: string;
  port: string;
  path: string;
}

/** The worker's metrics server binds WORKER_METRICS_HOST; a wildcard address is reached on the loopback. */
function workerHost(): string {
  const host = process.env.WORKER_METRICS_HOST || '127.0.0.1';
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}

function probeOf(target: string | undefined): Probe | string {
  if (target === 'api') return { host: '127.0.0.1', port: process.env.PORT || '3000', path: '/health/ready' };
  if (target === 'worker') {
    const port = process.env.WORKER_METRICS_PORT || '9464';
    if (port === '0') return 'WORKER_METRICS_PORT=0 (any free port): set the port the worker listens on';
    return { host: workerHost(), port, path: '/health/live' };
  }
  return `usage: healthcheck.js api|worker (got ${target ?? 'nothing'})`;
}

const probe = probeOf(process.argv[2]);
if (typeof probe === 'string') {
  console.error(probe);
  process.exit(2);
}
const url = `http://${probe.host.includes(':') ? `[${probe.host}]` : probe.host}:${probe.port}${probe.path}`;
const fail = (why: string) => {
  console.error(`GET ${url}: ${why}`);
  process.exit(1);
};
// agent: false: no kept-alive socket holds the process after the answer.
const probing = request({ host: probe.host, port: probe.port, path: probe.path, agent: false }, (response) => {
  let body = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => (body += chunk));
  response.on('end', () => {
    if (response.statusCode === 200) process.exit(0);
    fail(`${response.statusCode} ${body.slice(0, 500)}`);
  });
});
probing.setTimeout(TIMEOUT_MS, () => probing.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
probing.on('error', (error) => fail(error.message));
probing.end();
