import { Redis, type RedisOptions } from 'ioredis';

/** A Redis connection for BullMQ: commands wait for a reconnect instead of failing (BullMQ's production guide). */
export function createRedisConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, ...options });
}

/** A connection for health checks: fails fast instead of queueing while Redis is away. */
export function createProbeConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, lazyConnect: false });
}
