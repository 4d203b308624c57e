import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ENV, type Env } from '../../config/src/index.js';
import {
  type RedisConnection,
  createRedisConnection,
  createRequestConnection,
  redisTargetOf,
  whenConnected,
} from '../../redis/src/index.js';

/** Told an app's id, or `null` when a change may have been missed (the subscription was lost): any app. */
export type McpServerChangeListener = (appId: string | null) => void;

/**
 * Tells every API replica and worker (Redis pub/sub) that an app's MCP server changed for good — its URL or auth
 * header, its agent tools switched off, the app deleted — so that each closes its sessions with the old server.
 * Only app ids travel, with the announcing process's random id: a process acts on its own change at once, not
 * when its message comes back (sessions it opened meanwhile with the new settings stay). A message missed while the
 * subscription was down is made up for on resubscribing: the listener is told `null`.
 */
@Injectable()
export class McpServerChanges implements OnModuleDestroy {
  private readonly channel: string;
  private readonly origin = randomUUID();
  private publisher?: RedisConnection;
  private subscriber?: RedisConnection;
  private readonly listeners = new Set<McpServerChangeListener>();

  constructor(@Inject(ENV) private readonly env: Env) {
    this.channel = `${env.QUEUE_PREFIX}:mcp-server-changed`;
  }

  /** Publishes the change (after the database commit); fails fast while Redis is away. */
  async announce(appId: string): Promise<void> {
    if (!this.publisher) {
      this.publisher = createRequestConnection(redisTargetOf(this.env));
      this.publisher.on('error', () => undefined);
    }
    await whenConnected(this.publisher);
    await this.publisher.publish(this.channel, JSON.stringify([this.origin, appId]));
  }

  /** Calls `listener` with each change announced from now on, by any process; subscribes (once) without waiting. */
  listen(listener: McpServerChangeListener): void {
    this.listeners.add(listener);
    if (this.subscriber) return;
    const subscriber = createRedisConnection(redisTargetOf(this.env), {
      autoResubscribe: false,
      connectionName: `${this.env.QUEUE_PREFIX}:mcp-server-changes`,
    });
    this.subscriber = subscriber;
    let subscribedBefore = false;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, message: string) => {
      const appId = appIdOf(message, this.origin);
      if (appId !== null) this.tell(appId);
    });
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).then(
        () => {
          if (subscribedBefore) this.tell(null); // what was announced while the connection was down went unheard
          subscribedBefore = true;
        },
        () => undefined,
      );
    });
  }

  private tell(appId: string | null): void {
    for (const listener of this.listeners) listener(appId);
  }

  onModuleDestroy(): void {
    this.publisher?.disconnect();
    this.subscriber?.disconnect();
  }
}

/** The app id of another process's message (`[origin, appId]`); null for this process's own and anything else. */
export function appIdOf(message: string, ownOrigin: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') return null;
  return parsed[0] === ownOrigin ? null : parsed[1];
}
