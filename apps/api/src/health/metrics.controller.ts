import { Controller, Get, Injectable, type OnModuleInit, Res } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/openapi.js';
import type { FastifyReply } from 'fastify';
import { Metrics } from '../../../../libs/observability/src/index.js';
import { DeliveryQueue } from '../../../../libs/queue/src/index.js';

/** Queue depth for Prometheus: jobs waiting, delayed (retries due later) and active, read at scrape time. */
@Injectable()
export class QueueMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly queue: DeliveryQueue,
  ) {}

  onModuleInit(): void {
    this.metrics.gaugeOnScrape(
      'toolgate_queue_jobs',
      'Delivery jobs in the queue, by state.',
      ['state'],
      () => this.queue.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized'),
      'state',
    );
  }
}

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @Operation('metrics', 'Prometheus metrics')
  @ApiResponse({
    status: 200,
    description: 'The Prometheus text format',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  async metricsText(@Res() response: FastifyReply): Promise<void> {
    void response.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
