import { readFileSync } from 'node:fs';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** How long a request path waits for one Redis command (a healthy Redis answers in a millisecond). */
export const REQUEST_COMMAND_TIMEOUT_MS = 1000;

/** Where Toolgate's Redis is: REDIS_URL, REDIS_TLS_CA_FILE and REDIS_CLUSTER (libs/config/src/env.ts). */
export interface RedisTarget {
  url: string;
  /** PEM file of the CA that signed the server's certificate (a `rediss://` URL); the system's CAs when unset. */
  tlsCaFile?: string;
  /** The URL is one node of a Redis Cluster: the others are found from it. */
  cluster?: boolean;
}

/** A connection to a single Redis or to a Redis Cluster: both take the same commands. */
export type RedisConnection = Redis | Cluster;

/** The Redis of the environment, or an error saying that REDIS_URL is unset. */
export function redisTargetOf(env: {
  REDIS_URL?: string;
  REDIS_TLS_CA_FILE?: string;
  REDIS_CLUSTER?: boolean;
}): RedisTarget {
  if (!env.REDIS_URL) throw new Error('REDIS_URL is not set: npm start sets it for the local Redis');
  return { url: env.REDIS_URL, tlsCaFile: env.REDIS_TLS_CA_FILE, cluster: env.REDIS_CLUSTER };
}

/**
 * Opens a connection to the target with `options` (for a cluster, each node's connection gets them). A `rediss://` URL
 * connects with TLS, verified against REDIS_TLS_CA_FILE when set; the URL's user and password (an ACL user)
 * authenticate every connection, a cluster's node and subscriber connections too.
 */
function connect(target: RedisTarget | string, options: RedisOptions): RedisConnection {
  const { url, tlsCaFile, cluster } = typeof target === 'string' ? { url: target } : target;
  const parsed = new URL(url);
  const tls = parsed.protocol === 'rediss:' ? { ca: tlsCaFile ? readFileSync(tlsCaFile) : undefined } : undefined;
  if (!cluster) return new Redis(url, tls ? { ...options, tls } : options);
  // The cluster queues or fails commands and pipelines them itself; it opens its node connections when it needs them.
  const { enableOfflineQueue, enableAutoPipelining, lazyConnect: _, ...perNode } = options;
  const seed = { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 6379) };
  return new Cluster([seed], {
    enableOfflineQueue,
    enableAutoPipelining,
    redisOptions: {
      ...perNode,
      username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
      password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
      tls,
    },
  });
}

/** A connection for BullMQ workers: commands wait for a reconnect instead of failing (BullMQ's production guide). */
export function createRedisConnection(target: RedisTarget | string, options: RedisOptions = {}): RedisConnection {
  return connect(target, { maxRetriesPerRequest: null, ...options });
}

/**
 * A connection for request paths (BullMQ's "failing fast when Redis is down"): while Redis is
 * away a command fails at once instead of queueing, and one that gets no answer fails after
 * REQUEST_COMMAND_TIMEOUT_MS; callers fall back (the reconciler queues a stored call later).
 * Commands issued in one tick go in one write (auto-pipelining), unless `autoPipelining` is false: ioredis
 * copies every script defined on the connection onto each pipeline it makes, and BullMQ defines 64 on a queue's
 * (about 0.1 ms per pipeline, each lone command its own), so a queue's connection batches its adds itself.
 * Never for a blocking connection.
 */
export function createRequestConnection(target: RedisTarget | string, { autoPipelining = true } = {}): RedisConnection {
  return connect(target, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: REQUEST_COMMAND_TIMEOUT_MS,
    enableAutoPipelining: autoPipelining,
  });
}

/** A connection for health checks: fails fast instead of queueing while Redis is away. */
export function createProbeConnection(target: RedisTarget | string): RedisConnection {
  return connect(target, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    lazyConnect: false,
  });
}

const connecting = new WeakMap<RedisConnection, Promise<void>>();
const closing = new WeakMap<RedisConnection, Promise<void>>();

/**
 * Resolves when a fail-fast connection can take commands: at once when it is ready, after its
 * connect when it is connecting for the first time; rejects at once while Redis is away. However
 * many wait, the connection carries one pair of listeners (a burst of first publishes added one
 * pair each, and Node printed a listener leak warning, not a JSON line, past ten).
 */
export function whenConnected(redis: RedisConnection, ms = REQUEST_COMMAND_TIMEOUT_MS): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  if (!['wait', 'connecting', 'connect'].includes(redis.status))
    return Promise.reject(new Error(`Redis is away (${redis.status})`));
  const pending = connecting.get(redis);
  if (pending) return pending;
  const connected = new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      connecting.delete(redis);
      redis.off('ready', onReady);
      redis.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onClose = () => done(new Error('Redis is away (connection closed)'));
    const timer = setTimeout(() => done(new Error(`Redis did not connect within ${ms} ms`)), ms);
    redis.once('ready', onReady);
    redis.once('close', onClose);
  });
  connecting.set(redis, connected);
  return connected;
}

/** Resolves when the connection next closes; one listener however many wait. */
export function whenClosed(redis: RedisConnection): Promise<void> {
  let closed = closing.get(redis);
  if (!closed) {
    closed = new Promise<void>((resolve) =>
      redis.once('close', () => {
        closing.delete(redis);
        resolve();
      }),
    );
    closing.set(redis, closed);
  }
  return closed;
}

/** Rejects when `promise` has not settled within `ms`: for waits a connection's own timeout does not cover. */
export function withinMs<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer from Redis within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
