import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ENV, type Env } from '../../config/src/index.js';
import { type RedisConnection, createRequestConnection, redisTargetOf, whenConnected } from '../../redis/src/index.js';

/** How long a limit check waits for Redis's answer before it lets the request through unchecked. */
const CHECK_TIMEOUT_MS = 500;
/**
 * The window a per-second rate is counted over: a second, and the spread of the time between a request's start
 * being stamped and its reaching the far side (signing, a connection, tens of ms), so that the far side never sees
 * more than `maxPerSecond` arrive within any second of its own clock.
 */
const RATE_WINDOW_MS = 1050;
/** How long a check waits for the process's first connection (one Redis lost answers unchecked at once). */
const CONNECT_WAIT_MS = 2000;
/** While Redis is away, the warning that limits are not enforced is logged at most this often. */
const WARN_EVERY_MS = 60_000;

/**
 * Opens a slot of a limited lane: at most `maxInFlight` leases held at once (a lease left by a process that died
 * expires), at most `maxPerSecond` started in any ARGV[5] ms (RATE_WINDOW_MS). On Redis's clock, so every process counts alike.
 * Answers {1, 0} or {0, ms until a start would be allowed by the rate, or 0 when only the in-flight cap is full}; a
 * slot refused sets KEYS[3] to the time (kept 30 days), for the console's "last held back".
 */
const OPEN_SLOT = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local maxInFlight = tonumber(ARGV[1])
local maxPerSecond = tonumber(ARGV[2])
local wait = -1
if maxInFlight > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= maxInFlight then wait = 0 end
end
if maxPerSecond > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[5]))
  local started = redis.call('ZCARD', KEYS[2])
  if started >= maxPerSecond then
    local oldest = redis.call('ZRANGE', KEYS[2], started - maxPerSecond, started - maxPerSecond, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + tonumber(ARGV[5]) - now, 1)
  end
end
if wait >= 0 then
  redis.call('SET', KEYS[3], now, 'PX', 2592000000)
  return {0, wait}
end
if maxInFlight > 0 then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[4])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + 1000)
end
if maxPerSecond > 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[5]) + 1000)
end
return {1, 0}
`;

/**
 * Counts one event against each sliding window KEYS[i] whose limit ARGV[i] is above 0, all or none: {1, 0, 0}, or
 * {0, ms until the window with the longest wait lets one more in, that window's i}. ARGV[n+1] is the window length,
 * ARGV[n+2] the event's member.
 */
const TAKE_WINDOWS = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local window = tonumber(ARGV[#KEYS + 1])
local wait = 0
local full = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i])
  if limit > 0 then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
    local counted = redis.call('ZCARD', key)
    if counted >= limit then
      local oldest = redis.call('ZRANGE', key, counted - limit, counted - limit, 'WITHSCORES')
      local ready = math.max(tonumber(oldest[2]) + window - now, 1)
      if ready > wait then
        wait = ready
        full = i
      end
    end
  end
end
if wait > 0 then return {0, wait, full} end
for i, key in ipairs(KEYS) do
  if tonumber(ARGV[i]) > 0 then
    redis.call('ZADD', key, now, ARGV[#KEYS + 2])
    redis.call('PEXPIRE', key, window + 1000)
  end
end
return {1, 0, 0}
`;

/** Moves a start (ARGV[1]) of a rate's log KEYS[1] to now, the moment its request goes out, if it is still there. */
const RESTAMP_START = `
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], 'XX', t[1] * 1000 + math.floor(t[2] / 1000), ARGV[1])
return {1, 0}
`;

/** A lane's caps; 0 or null: that cap is off. */
export interface SlotCaps {
  maxInFlight: number | null;
  maxPerSecond: number | null;
}

/**
 * What a slot check answered: a lease to give back (and to stamp `starting` as its request goes out, so that the
 * rate counts when requests leave, not when their slots opened), `full` with the wait the rate asks, or `unchecked`.
 */
export type SlotAnswer =
  | { kind: 'open'; release: () => void; starting: () => Promise<void> }
  | { kind: 'full'; retryInMs: number; by: 'in_flight' | 'per_second' }
  | { kind: 'unchecked' };

/** A sliding-window count: taken, `full` (the window's name, the ms until one more fits), or `unchecked`. */
export type WindowAnswer =
  { kind: 'taken' } | { kind: 'full'; retryInMs: number; window: string } | { kind: 'unchecked' };

type Evaluated = [number, number, number?];

/**
 * Counters every API and worker process shares, in Redis (Lua scripts: one round trip, all or nothing, on Redis's
 * clock): leases of a lane's in-flight slots with a per-second rate, and sliding windows of counted events. A limit
 * protects capacity and never loses work: while Redis is away (or slower than CHECK_TIMEOUT_MS), a check answers
 * `unchecked`, and a warning is logged at most once a minute. Keys are `<QUEUE_PREFIX>:limits:{<subject>}:…`:
 * the hash tag keeps one subject's keys in one Redis Cluster slot.
 */
@Injectable()
export class FleetCounters implements OnModuleDestroy {
  private readonly logger = new Logger('Limits');
  private redis?: RedisConnection;
  private warnedAt = 0;

  constructor(@Inject(ENV) private readonly env: Env) {}

  /** Opens a slot of `subject` (`app:<id>`) for at most `leaseMs`, under `caps`. */
  async openSlot(subject: string, caps: SlotCaps, leaseMs: number): Promise<SlotAnswer> {
    const maxInFlight = caps.maxInFlight ?? 0;
    const maxPerSecond = caps.maxPerSecond ?? 0;
    const keys = [this.key(subject, 'in-flight'), this.key(subject, 'started'), this.key(subject, 'held-at')];
    const token = randomUUID();
    const answer = await this.evaluate(OPEN_SLOT, keys, [
      maxInFlight,
      maxPerSecond,
      Math.ceil(leaseMs),
      token,
      RATE_WINDOW_MS,
    ]);
    if (!answer) return { kind: 'unchecked' };
    const [opened, retryInMs] = answer;
    if (opened === 1) {
      let held = maxInFlight > 0;
      return {
        kind: 'open',
        starting: async () => {
          if (maxPerSecond > 0) await this.evaluate(RESTAMP_START, [keys[1]], [token]);
        },
        release: () => {
          if (!held) return;
          held = false;
          // Not awaited: a lease Redis did not hear back expires by itself.
          this.connection()
            .zrem(keys[0], token)
            .catch(() => undefined);
        },
      };
    }
    return { kind: 'full', retryInMs, by: retryInMs > 0 ? 'per_second' : 'in_flight' };
  }

  /**
   * Counts one event in every window of `windows` whose limit is set, or in none when one of them is full. The
   * windows are all of one `subject` (one Redis Cluster slot), each by its name.
   */
  async takeWindows(
    subject: string,
    windows: { name: string; limit: number | null }[],
    windowMs: number,
  ): Promise<WindowAnswer> {
    const keys = windows.map((w) => this.key(subject, `window:${w.name}`));
    const args = [...windows.map((w) => w.limit ?? 0), windowMs, randomUUID()];
    const answer = await this.evaluate(TAKE_WINDOWS, keys, args);
    if (!answer) return { kind: 'unchecked' };
    if (answer[0] === 1) return { kind: 'taken' };
    return { kind: 'full', retryInMs: answer[1], window: windows[(answer[2] ?? 1) - 1].name };
  }

  /** When a slot of `subject` was last refused, or null (never, in 30 days, or Redis does not answer). */
  async lastHeldBack(subject: string): Promise<Date | null> {
    try {
      const redis = this.connection();
      await whenConnected(redis, CONNECT_WAIT_MS);
      const at = await redis.get(this.key(subject, 'held-at'));
      return at ? new Date(Number(at)) : null;
    } catch {
      return null;
    }
  }

  onModuleDestroy(): void {
    this.redis?.disconnect();
  }

  private key(subject: string, what: string): string {
    return `${this.env.QUEUE_PREFIX}:limits:{${subject}}:${what}`;
  }

  /** The script's answer, or null when Redis did not give one in time (then the limit is not enforced). */
  private async evaluate(script: string, keys: string[], args: (string | number)[]): Promise<Evaluated | null> {
    const redis = this.connection();
    let timer: NodeJS.Timeout | undefined;
    try {
      await whenConnected(redis, CONNECT_WAIT_MS);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      });
      return (await Promise.race([evalScript(redis, script, keys, args), timeout])) as Evaluated;
    } catch (error) {
      this.warnUnchecked(error);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  private warnUnchecked(error: unknown): void {
    const now = Date.now();
    if (now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    const why = error instanceof Error ? error.message : String(error);
    this.logger.warn(`limits are not enforced while Redis does not answer (${why}); calls go on unchecked`);
  }

  /** Opened on the first limit checked: a process whose apps and projects set none never connects. */
  private connection(): RedisConnection {
    if (!this.redis) {
      this.redis = createRequestConnection(redisTargetOf(this.env));
      this.redis.on('error', () => undefined);
    }
    return this.redis;
  }
}

const scriptShas = new Map<string, string>();

/** EVALSHA, falling back to EVAL once when Redis does not know the script (after a restart or a failover). */
async function evalScript(redis: RedisConnection, script: string, keys: string[], args: (string | number)[]) {
  let sha = scriptShas.get(script);
  if (!sha) {
    sha = createHash('sha1').update(script).digest('hex');
    scriptShas.set(script, sha);
  }
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
    return redis.eval(script, keys.length, ...keys, ...args);
  }
}
