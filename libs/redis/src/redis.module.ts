import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ENV, type Env } from '../../config/src/index.js';
import { createProbeConnection } from './redis.js';

/** Injection token of the fail-fast Redis connection used by readiness checks. */
export const REDIS_PROBE = Symbol('REDIS_PROBE');

@Global()
@Module({
  providers: [
    {
      provide: REDIS_PROBE,
      inject: [ENV],
      useFactory: (env: Env) => {
        if (!env.REDIS_URL) throw new Error('REDIS_URL is not set: npm start sets it for the local Redis');
        const redis = createProbeConnection(env.REDIS_URL);
        redis.on('error', () => undefined); // readiness reports it; reconnects on its own
        return redis;
      },
    },
  ],
  exports: [REDIS_PROBE],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_PROBE) private readonly redis: Redis) {}

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
