import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ENV, type Env } from '../../config/src/index.js';
import {
  REQUEST_COMMAND_TIMEOUT_MS,
  type RedisConnection,
  createRedisConnection,
  createRequestConnection,
  redisTargetOf,
  whenConnected,
  withinMs,
} from '../../redis/src/index.js';

/** Past this many agents heard of, the counts start over (a new epoch: every cached toolset is rebuilt once). */
const MAX_HEARD_AGENTS = 100_000;

/**
 * A counter per agent, bumped (after the database commit) whenever something its tool list depends on
 * changes: every API replica compares it with the counter its cached toolset was built at, so a cache is
 * never served stale across replicas.
 *
 * A bump is an INCR (kept a day) and a message on one channel. While this replica's subscription to that
 * channel is live, the generation is read from what it heard (no Redis round trip per call); each
 * (re)subscription starts a new epoch, so a bump missed while the connection was down cannot leave a stale
 * toolset behind. While it is not live, the counter is read from Redis.
 */
@Injectable()
export class ToolsetGenerations implements OnModuleDestroy {
  private readonly redis: RedisConnection;
  private readonly prefix: string;
  private readonly channel: string;
  private subscriber?: RedisConnection;
  private firstSubscription?: Promise<void>;
  private firstWait?: Promise<void>;
  private live = false;
  private epoch = 0;
  private readonly heard = new Map<string, number>();

  constructor(@Inject(ENV) private readonly env: Env) {
    // Fails fast: without Redis the toolset is read from the database.
    this.redis = createRequestConnection(redisTargetOf(env));
    this.redis.on('error', () => undefined);
    this.prefix = `${env.QUEUE_PREFIX}:toolset-gen:`;
    this.channel = `${env.QUEUE_PREFIX}:toolset-bumped`;
  }

  async current(agentKey: string): Promise<string> {
    // The first reads wait (once, bounded) for the subscription; later ones, while it is down, read Redis.
    if (!this.live) {
      this.firstWait ??= withinMs(this.subscribe(), REQUEST_COMMAND_TIMEOUT_MS, 'subscribing').catch(() => undefined);
      await this.firstWait;
    }
    if (this.live) return `e${this.epoch}.${this.heard.get(agentKey) ?? 0}`;
    await whenConnected(this.redis);
    return (await this.redis.get(this.prefix + agentKey)) ?? '0';
  }

  async bump(agentKeys: string[]): Promise<void> {
    if (agentKeys.length === 0) return;
    // This replica's next read sees the change at once; the others when the message arrives.
    for (const key of agentKeys) this.hear(key);
    await whenConnected(this.redis);
    // One pipeline even on a Redis Cluster: the counters share the hash tag of QUEUE_PREFIX, so one slot and node.
    const pipeline = this.redis.pipeline();
    // The counters outlive any cache entry (those expire within minutes); a day bounds Redis use.
    for (const key of agentKeys) pipeline.incr(this.prefix + key).expire(this.prefix + key, 86_400);
    for (const key of agentKeys) pipeline.publish(this.channel, key);
    await pipeline.exec();
  }

  /** Subscribes once (again on every reconnect); resolves when the first subscription is live. */
  private subscribe(): Promise<void> {
    this.firstSubscription ??= new Promise<void>((resolve) => {
      const subscriber = createRedisConnection(redisTargetOf(this.env), {
        autoResubscribe: false,
        connectionName: `${this.env.QUEUE_PREFIX}:toolset-generations`,
      });
      this.subscriber = subscriber;
      subscriber.on('error', () => undefined);
      subscriber.on('message', (_channel: string, key: string) => this.hear(key));
      subscriber.on('close', () => (this.live = false));
      subscriber.on('ready', () => {
        subscriber.subscribe(this.channel).then(
          () => {
            this.startEpoch();
            this.live = true;
            resolve();
          },
          () => (this.live = false),
        );
      });
    });
    return this.firstSubscription;
  }

  private startEpoch(): void {
    this.epoch += 1;
    this.heard.clear();
  }

  private hear(key: string): void {
    if (this.heard.size >= MAX_HEARD_AGENTS) this.startEpoch();
    this.heard.set(key, (this.heard.get(key) ?? 0) + 1);
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
    this.subscriber?.disconnect();
  }
}
