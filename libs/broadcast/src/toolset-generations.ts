import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ENV, type Env } from '../../config/src/index.js';
import { createRequestConnection, whenConnected } from '../../redis/src/index.js';

/**
 * A counter per agent, bumped (after the database commit) whenever something its tool list
 * depends on changes: every API replica compares it with the counter its cached toolset was
 * built at, so a cache is never served stale across replicas.
 */
@Injectable()
export class ToolsetGenerations implements OnModuleDestroy {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(@Inject(ENV) env: Env) {
    if (!env.REDIS_URL) throw new Error('REDIS_URL is not set');
    // Fails fast: without Redis the toolset is read from the database.
    this.redis = createRequestConnection(env.REDIS_URL);
    this.redis.on('error', () => undefined);
    this.prefix = `${env.QUEUE_PREFIX}:toolset-gen:`;
  }

  async current(agentKey: string): Promise<string> {
    await whenConnected(this.redis);
    return (await this.redis.get(this.prefix + agentKey)) ?? '0';
  }

  async bump(agentKeys: string[]): Promise<void> {
    if (agentKeys.length === 0) return;
    await whenConnected(this.redis);
    const pipeline = this.redis.pipeline();
    // The counters outlive any cache entry (those expire within minutes); a day bounds Redis use.
    for (const key of agentKeys) pipeline.incr(this.prefix + key).expire(this.prefix + key, 86_400);
    await pipeline.exec();
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
  }
}
