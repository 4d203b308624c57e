import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ENV, type Env } from '../../config/src/index.js';
import { AppDispatchers } from './app-dispatchers.js';
import { HostResolver } from './host-resolver.js';

@Global()
@Module({
  providers: [
    {
      provide: AppDispatchers,
      inject: [ENV],
      useFactory: (env: Env) =>
        new AppDispatchers({
          allowPrivate: env.ALLOW_PRIVATE_NETWORK,
          resolver: new HostResolver({ servers: env.DNS_SERVERS, timeoutMs: env.DNS_TIMEOUT_MS }),
        }),
    },
  ],
  exports: [AppDispatchers],
})
export class OutboundHttpModule implements OnApplicationShutdown {
  constructor(@Inject(AppDispatchers) private readonly dispatchers: AppDispatchers) {}

  async onApplicationShutdown(): Promise<void> {
    await this.dispatchers.close();
  }
}
