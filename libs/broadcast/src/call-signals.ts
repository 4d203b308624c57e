import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ENV, type Env } from '../../config/src/index.js';
import {
  REQUEST_COMMAND_TIMEOUT_MS,
  type RedisConnection,
  createRedisConnection,
  createRequestConnection,
  redisTargetOf,
  whenClosed,
  whenConnected,
  withinMs,
} from '../../redis/src/index.js';

export interface CallProgress {
  /** The attempt that just failed, and how many the schedule has. */
  n: number;
  total: number;
  message: string;
}

type Listener = (payload: string) => void;

interface Watch {
  subscribed: Promise<boolean>;
  stop: () => void;
}

type Kind = 'finished' | 'progress' | 'cancel';

/** The signals of one kind published in one turn of the event loop, and their one message's fate. */
interface Outgoing {
  signals: [id: string, payload: string][];
  sent: Promise<void>;
}

/**
 * Tells every API replica about calls (Redis pub/sub): that one finished (long-polls answer at
 * once), that an attempt failed (progress for MCP clients), that an MCP client cancelled a request
 * (whichever replica runs it stops). Only ids and short messages travel: never a result or a secret.
 *
 * These are signals between Toolgate's own processes, not the tool_call.finished events a host receives. The
 * signals of a kind published in one turn of the event loop travel as one message (`[[id, payload], …]`): a batch
 * of attempts recorded by one statement ends its calls together, and one PUBLISH tells of them all.
 */
@Injectable()
export class CallSignals implements OnModuleDestroy {
  private readonly channels: Record<Kind, string>;
  private publisher?: RedisConnection;
  private subscriber?: Promise<RedisConnection>;
  private subscriberConnection?: RedisConnection;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly outgoing = new Map<Kind, Outgoing>();
  private destroyed = false;

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

  /**
   * Listens for the call's end until `stop()`, registered at once (never waiting on Redis):
   * `finished` resolves when it is published; `subscribed` says whether Redis confirmed the
   * subscription (false when it could not: then only re-reading the call tells).
   */
  watchFinish(callId: string): { finished: Promise<void>; subscribed: Promise<boolean>; stop: () => void } {
    let fire!: () => void;
    const finished = new Promise<void>((resolve) => (fire = resolve));
    const { subscribed, stop } = this.watch('finished', callId, () => fire());
    return { finished, subscribed, stop };
  }

  /** Passes the call's retry progress on until the returned function is called; registered at once. */
  onProgress(callId: string, listener: (progress: CallProgress) => void): () => void {
    const { stop } = this.watch('progress', callId, (payload) => listener(JSON.parse(payload) as CallProgress));
    return stop;
  }

  async onCancel(requestKey: string, listener: () => void): Promise<() => void> {
    return this.listen('cancel', requestKey, () => listener());
  }

  /** Joins the signal to this turn's message of its kind; resolves when that message is published. */
  private publish(kind: Kind, id: string, payload: string): Promise<void> {
    let batch = this.outgoing.get(kind);
    if (!batch) {
      const signals: Outgoing['signals'] = [];
      const sent = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.outgoing.delete(kind); // what is published from now on goes in the next message
        return this.send(kind, signals);
      });
      batch = { signals, sent };
      this.outgoing.set(kind, batch);
    }
    batch.signals.push([id, payload]);
    return batch.sent;
  }

  private async send(kind: Kind, signals: Outgoing['signals']): Promise<void> {
    // A message of a turn that ended after shutdown opens no connection (one would outlive the process's modules).
    if (this.destroyed) throw new Error('call signals are closed: the process is shutting down');
    this.publisher ??= this.connect('publisher');
    await whenConnected(this.publisher); // a fresh connection is still connecting: its first message must not fail
    await this.publisher.publish(this.channels[kind], JSON.stringify(signals));
  }

  /** Registers at once, then waits (bounded) for the subscription so that no message is missed. */
  private async listen(kind: Kind, id: string, listener: Listener): Promise<() => void> {
    const { stop } = this.watch(kind, id, listener);
    await this.untilSubscribed();
    return stop;
  }

  private watch(kind: Kind, id: string, listener: Listener): Watch {
    const key = `${kind}\u0000${id}`;
    if (!this.listeners.has(key)) this.listeners.set(key, new Set());
    this.listeners.get(key)!.add(listener);
    const stop = () => {
      const set = this.listeners.get(key);
      set?.delete(listener);
      if (set?.size === 0) this.listeners.delete(key);
    };
    return {
      subscribed: this.ensureSubscribed().then(
        () => true,
        () => false,
      ),
      stop,
    };
  }

  private ensureSubscribed(): Promise<RedisConnection> {
    this.subscriber ??= (async () => {
      const redis = this.connect('subscriber');
      this.subscriberConnection = redis;
      const kinds = Object.fromEntries(Object.entries(this.channels).map(([kind, channel]) => [channel, kind]));
      redis.on('message', (channel: string, message: string) => {
        for (const [id, payload] of signalsOf(message)) {
          for (const listener of [...(this.listeners.get(`${kinds[channel]}\u0000${id}`) ?? [])]) listener(payload);
        }
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
    try {
      await withinMs(
        Promise.race([subscribed, whenClosed(redis)]),
        REQUEST_COMMAND_TIMEOUT_MS,
        'subscribing to call signals',
      );
    } catch {
      // Callers re-read Postgres: a missed message only delays them.
    }
  }

  /** Publishing is best effort and fails fast; the subscriber keeps its SUBSCRIBE until Redis is back. */
  private connect(kind: 'publisher' | 'subscriber'): RedisConnection {
    const target = redisTargetOf(this.env);
    const redis = kind === 'publisher' ? createRequestConnection(target) : createRedisConnection(target);
    redis.on('error', () => undefined);
    return redis;
  }

  async onModuleDestroy(): Promise<void> {
    this.destroyed = true;
    this.publisher?.disconnect();
    (await this.subscriber?.catch(() => undefined))?.disconnect();
  }
}

/** The signals of a message, `[[id, payload], …]`; nothing from anything else. */
export function signalsOf(message: string): [string, string][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const isSignal = (value: unknown): value is [string, string] =>
    Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string';
  return parsed.filter(isSignal);
}
