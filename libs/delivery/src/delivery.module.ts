import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Agent } from 'undici';
import { ENV, type Env } from '../../config/src/index.js';
import { createGuardedAgent } from './address-guard.js';

/** Injection token of the one HTTP agent webhooks go out through (keep-alive, SSRF-guarded lookups). */
export const WEBHOOK_DISPATCHER = Symbol('WEBHOOK_DISPATCHER');

@Global()
@Module({
  providers: [
    {
      provide: WEBHOOK_DISPATCHER,
      inject: [ENV],
      useFactory: (env: Env) => createGuardedAgent({ allowPrivate: env.ALLOW_PRIVATE_NETWORK }),
    },
  ],
  exports: [WEBHOOK_DISPATCHER],
})
export class DeliveryModule implements OnApplicationShutdown {
  constructor(@Inject(WEBHOOK_DISPATCHER) private readonly agent: Agent) {}

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close();
  }
}
