import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ENV, type Env } from '../../config/src/index.js';
import { type RedisConnection, createProbeConnection, redisTargetOf } from './redis.js';

/** Injection token of the fail-fast Redis connection used by readiness checks. */
export const REDIS_PROBE = Symbol('REDIS_PROBE');

@Global()
@Module({
  providers: [
    {
      provide: REDIS_PROBE,
      inject: [ENV],
      useFactory: (env: Env) => {
        const redis = createProbeConnection(redisTargetOf(env));
        redis.on('error', () => undefined); // readiness reports it; reconnects on its own
        return redis;
      },
    },
  ],
  exports: [REDIS_PROBE],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_PROBE) private readonly redis: RedisConnection) {}

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
