import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ENV, type Env } from '../../config/src/index.js';
import { createRedisConnection } from './redis.js';

/**
 * Tells every API replica that a call finished (Redis pub/sub), so that long-polls answer at once.
 * Only call ids travel: never a result or a secret.
 */
@Injectable()
export class CallEvents implements OnModuleDestroy {
  private readonly channel: string;
  private publisher?: Redis;
  private subscriber?: Redis;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(@Inject(ENV) private readonly env: Env) {
    this.channel = `${env.QUEUE_PREFIX}:tool-call-finished`;
  }

  async publishFinished(callId: string): Promise<void> {
    this.publisher ??= this.connect();
    await this.publisher.publish(this.channel, callId);
  }

  /** Resolves true when the call finishes within `timeoutMs`, false otherwise. */
  async waitForFinish(callId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    await this.ensureSubscribed();
    return new Promise((resolve) => {
      const done = (finished: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const set = this.waiters.get(callId);
        set?.delete(onFinish);
        if (set?.size === 0) this.waiters.delete(callId);
        resolve(finished);
      };
      const onFinish = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      signal?.addEventListener('abort', onAbort);
      if (!this.waiters.has(callId)) this.waiters.set(callId, new Set());
      this.waiters.get(callId)!.add(onFinish);
    });
  }

  private async ensureSubscribed(): Promise<void> {
    if (this.subscriber) return;
    this.subscriber = this.connect();
    this.subscriber.on('message', (_channel: string, callId: string) => {
      for (const waiter of [...(this.waiters.get(callId) ?? [])]) waiter();
    });
    await this.subscriber.subscribe(this.channel);
  }

  private connect(): Redis {
    if (!this.env.REDIS_URL) throw new Error('REDIS_URL is not set');
    const redis = createRedisConnection(this.env.REDIS_URL);
    redis.on('error', () => undefined);
    return redis;
  }

  onModuleDestroy(): void {
    this.publisher?.disconnect();
    this.subscriber?.disconnect();
  }
}
