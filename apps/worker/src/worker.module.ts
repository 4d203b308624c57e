import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, type Env } from '../../../libs/config/src/index.js';
import { BroadcastModule } from '../../../libs/broadcast/src/index.js';
import { DomainModule } from '../../../libs/domain/src/index.js';
import { McpModule } from '../../../libs/mcp/src/index.js';
import { ObservabilityModule } from '../../../libs/observability/src/index.js';
import { OutboundHttpModule } from '../../../libs/outbound-http/src/index.js';
import { PersistenceModule } from '../../../libs/persistence/src/index.js';
import { QueueModule } from '../../../libs/queue/src/index.js';
import { SecretsModule } from '../../../libs/secrets/src/index.js';
import { JOB_PROCESSORS, type JobProcessor } from './job-processor.js';
import { DeliveryProcessor } from './processors/delivery.processor.js';
import { QueueConsumer } from './queue-consumer.js';
import { ExpiredRecordsPurger } from './expired-records-purger.js';
import { McpSnapshotRefresher } from './mcp-snapshot-refresher.js';
import { MetricsServer } from './metrics-server.js';
import { Reconciler } from './reconciler.js';

/** The processors this worker runs, one per job name of libs/queue. */
const processors: (new (...args: never[]) => JobProcessor)[] = [DeliveryProcessor];

/** What the worker's processors run on: the domain with every module it needs, the delivery engine among them. */
export function workerDomainImports(env: Env) {
  return [
    ConfigModule.forRoot(env),
    ObservabilityModule,
    PersistenceModule,
    SecretsModule,
    QueueModule,
    BroadcastModule,
    OutboundHttpModule,
    McpModule,
    DomainModule,
  ];
}

@Module({})
export class WorkerModule {
  static forRoot(env: Env): DynamicModule {
    return {
      module: WorkerModule,
      imports: workerDomainImports(env),
      providers: [
        ...processors,
        { provide: JOB_PROCESSORS, inject: processors, useFactory: (...instances: JobProcessor[]) => instances },
        QueueConsumer,
        Reconciler,
        McpSnapshotRefresher,
        ExpiredRecordsPurger,
        MetricsServer,
      ],
    };
  }
}
