import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ENV, type Env } from '../../config/src/index.js';
import { REQUEST_COMMAND_TIMEOUT_MS, createRedisConnection, createRequestConnection, whenConnected, withinMs } from './redis.js';

export interface CallProgress {
  /** The attempt that just failed, and how many the schedule has. */
  n: number;
  total: number;
  message: string;
}

type Listener = (payload: string) => void;

/**
 * Tells every API replica about calls (Redis pub/sub): that one finished (long-polls answer at
 * once), that an attempt failed (progress for MCP clients), that an MCP client cancelled a request
 * (whichever replica runs it stops). Only ids and short messages travel: never a result or a secret.
 */
@Injectable()
export class CallEvents implements OnModuleDestroy {
  private readonly channels: Record<'finished' | 'progress' | 'cancel', string>;
  private publisher?: Redis;
  private subscriber?: Promise<Redis>;
  private subscriberConnection?: Redis;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(@Inject(ENV) private readonly env: Env) {
    this.channels = {
      finished: `${env.QUEUE_PREFIX}:tool-call-finished`,
      progress: `${env.QUEUE_PREFIX}:tool-call-progress`,
      cancel: `${env.QUEUE_PREFIX}:mcp-request-cancelled`,
    };
  }

  async publishFinished(callId: string): Promise<void> {
    await this.publish('finished', callId, '');
  }

  async publishProgress(callId: string, progress: CallProgress): Promise<void> {
    await this.publish('progress', callId, JSON.stringify(progress));
  }

  /** An MCP client cancelled request `requestKey` (agent and JSON-RPC id). */
  async publishCancel(requestKey: string): Promise<void> {
    await this.publish('cancel', requestKey, '');
  }

  /** Resolves true when the call finishes within `timeoutMs`, false otherwise. */
  async waitForFinish(callId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    let stop: () => void = () => undefined;
    const finished = await new Promise<boolean>((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        stop();
        resolve(value);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
      signal?.addEventListener('abort', onAbort);
      void this.listen('finished', callId, () => done(true)).then((unsubscribe) => (stop = unsubscribe));
    });
    return finished;
  }

  async onProgress(callId: string, listener: (progress: CallProgress) => void): Promise<() => void> {
    return this.listen('progress', callId, (payload) => listener(JSON.parse(payload) as CallProgress));
  }

  async onCancel(requestKey: string, listener: () => void): Promise<() => void> {
    return this.listen('cancel', requestKey, () => listener());
  }

  private async publish(kind: keyof CallEvents['channels'], id: string, payload: string): Promise<void> {
    this.publisher ??= this.connect('publisher');
    await whenConnected(this.publisher); // a fresh connection is still connecting: its first message must not fail
    await this.publisher.publish(this.channels[kind], JSON.stringify([id, payload]));
  }

  private async listen(kind: keyof CallEvents['channels'], id: string, listener: Listener): Promise<() => void> {
    const key = `${kind}\u0000${id}`;
    if (!this.listeners.has(key)) this.listeners.set(key, new Set());
    this.listeners.get(key)!.add(listener);
    await this.untilSubscribed();
    return () => {
      const set = this.listeners.get(key);
      set?.delete(listener);
      if (set?.size === 0) this.listeners.delete(key);
    };
  }

  private ensureSubscribed(): Promise<Redis> {
    this.subscriber ??= (async () => {
      const redis = this.connect('subscriber');
      this.subscriberConnection = redis;
      const kinds = Object.fromEntries(Object.entries(this.channels).map(([kind, channel]) => [channel, kind]));
      redis.on('message', (channel: string, message: string) => {
        const [id, payload] = JSON.parse(message) as [string, string];
        for (const listener of [...(this.listeners.get(`${kinds[channel]}\u0000${id}`) ?? [])]) listener(payload);
      });
      await redis.subscribe(...Object.values(this.channels));
      return redis;
    })();
    return this.subscriber;
  }

  /**
   * Waits for the subscription so that no message is missed, but not for Redis to come back: while
   * the subscriber has no connection nobody can publish either, and SUBSCRIBE goes out on reconnect.
   */
  private async untilSubscribed(): Promise<void> {
    const subscribed = this.ensureSubscribed();
    const redis = this.subscriberConnection;
    if (!redis || ['reconnecting', 'close', 'end'].includes(redis.status)) return;
    let onClose = () => undefined as void;
    const closed = new Promise<void>((resolve) => redis.once('close', (onClose = resolve)));
    try {
      await withinMs(Promise.race([subscribed, closed]), REQUEST_COMMAND_TIMEOUT_MS, 'subscribing to call events');
    } catch {
      // Callers re-read Postgres: a missed message only delays them.
    } finally {
      redis.off('close', onClose);
    }
  }

  /** Publishing is best effort and fails fast; the subscriber keeps its SUBSCRIBE until Redis is back. */
  private connect(kind: 'publisher' | 'subscriber'): Redis {
    if (!this.env.REDIS_URL) throw new Error('REDIS_URL is not set');
    const url = this.env.REDIS_URL;
    const redis = kind === 'publisher' ? createRequestConnection(url) : createRedisConnection(url);
    redis.on('error', () => undefined);
    return redis;
  }

  async onModuleDestroy(): Promise<void> {
    this.publisher?.disconnect();
    (await this.subscriber?.catch(() => undefined))?.disconnect();
  }
}
