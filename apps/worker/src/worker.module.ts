import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, type Env } from '../../../libs/config/src/index.js';
import { PersistenceModule } from '../../../libs/persistence/src/index.js';
import { SecretsModule } from '../../../libs/secrets/src/index.js';
import { JOB_PROCESSORS, type JobProcessor } from './job-processor.js';
import { QueueConsumer } from './queue-consumer.js';

/** The processors this worker runs, one per job name of libs/queue. The delivery pipeline adds its own. */
const processors: (new (...args: never[]) => JobProcessor)[] = [];

@Module({})
export class WorkerModule {
  static forRoot(env: Env): DynamicModule {
    return {
      module: WorkerModule,
      imports: [ConfigModule.forRoot(env), PersistenceModule, SecretsModule],
      providers: [
        ...processors,
        { provide: JOB_PROCESSORS, inject: processors, useFactory: (...instances: JobProcessor[]) => instances },
        QueueConsumer,
      ],
    };
  }
}
