import { createServer, type Server } from 'node:http';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ENV, type Env, explainListenError } from '../../../libs/config/src/index.js';
import { Metrics } from '../../../libs/observability/src/index.js';

/** What the API answers to GET /health/live too: one probe reads both alike. */
const LIVE_ANSWER = JSON.stringify({ status: 'ok' });

/**
 * The worker's HTTP endpoint on WORKER_METRICS_HOST:WORKER_METRICS_PORT: GET /metrics (Prometheus) and
 * GET /health/live (the process answers; what the image's HEALTHCHECK and a liveness probe ask).
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.server = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/health/live') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(LIVE_ANSWER);
        return;
      }
      if (req.method !== 'GET' || req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    const { WORKER_METRICS_PORT: port, WORKER_METRICS_HOST: host } = this.env;
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', (error) => reject(explainListenError(error, 'WORKER_METRICS_PORT', port, host)));
      this.server!.listen(port, host, resolve);
    });
    this.logger.log(`metrics on http://${host}:${this.port}/metrics`);
  }

  get port(): number {
    return (this.server?.address() as { port: number } | null)?.port ?? 0;
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }
}
