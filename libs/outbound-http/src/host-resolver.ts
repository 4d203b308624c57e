// Name resolution off libuv's thread pool: c-ares (dns.Resolver) instead of getaddrinfo (dns.lookup).
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** How long one name may take to resolve, by default; then the attempt fails as `network`. */
export const DEFAULT_DNS_TIMEOUT_MS = 5_000;

export interface HostResolverOptions {
  /** DNS servers as `host[:port]` (c-ares format); the system's when absent. */
  servers?: readonly string[];
  timeoutMs?: number;
}

function dnsError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/**
 * The addresses of a name without DNS: an IP literal is itself and `localhost` (RFC 6761) is
 * loopback, since c-ares does not read /etc/hosts. Null for any other name.
 */
export function addressesWithoutDns(hostname: string): LookupAddress[] | null {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family) return [{ address: bare, family }];
  const name = bare.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  }
  return null;
}

/**
 * Resolves handler and MCP hosts with c-ares (A and AAAA), which never blocks the thread pool that
 * WebCrypto (JWT checks, secret decryption) shares with dns.lookup. Fails after the timeout.
 */
export class HostResolver {
  private readonly resolver: Resolver;
  private readonly timeoutMs: number;

  constructor(options: HostResolverOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
    // two tries per server, each a share of the budget; the timer below is the hard bound
    this.resolver = new Resolver({ timeout: Math.max(50, Math.floor(this.timeoutMs / 3)), tries: 2 });
    if (options.servers?.length) this.resolver.setServers([...options.servers]);
  }

  /** Every address of `hostname`, IPv4 first; rejects with ENOTFOUND, ETIMEOUT or the resolver's code. */
  async resolve(hostname: string): Promise<LookupAddress[]> {
    const known = addressesWithoutDns(hostname);
    if (known) return known;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.timedOut(hostname)), this.timeoutMs);
    });
    try {
      const [v4, v6] = await Promise.race([
        Promise.allSettled([this.resolver.resolve4(hostname), this.resolver.resolve6(hostname)]),
        timeout,
      ]);
      const addresses: LookupAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length > 0) return addresses;
      const failure = [v4, v6].find(
        (r): r is PromiseRejectedResult => r.status === 'rejected' && errorCode(r.reason) !== 'ENODATA',
      );
      const code = (failure && errorCode(failure.reason)) ?? 'ENOTFOUND';
      if (code === 'ETIMEOUT') throw this.timedOut(hostname);
      throw dnsError(code, `DNS lookup of ${hostname} failed (${code})`);
    } finally {
      clearTimeout(timer);
    }
  }

  private timedOut(hostname: string): NodeJS.ErrnoException {
    return dnsError('ETIMEOUT', `DNS lookup of ${hostname} got no answer within ${this.timeoutMs} ms`);
  }
}

/** Thrown when an app already has as many lookups in flight as it may. */
export class TooManyLookupsError extends Error {
  readonly code = 'EDNSBUSY';

  constructor(hostname: string, limit: number) {
    super(
      `${limit} DNS lookups of this app's hosts are still unanswered, so "${hostname}" is not looked up now; its DNS may be slow or down`,
    );
    this.name = 'TooManyLookupsError';
  }
}

/**
 * One app's lookups: at most `limit` different names in flight (more fail at once, so a hostile
 * DNS holds no worker slot), and lookups of a name already in flight share its answer.
 */
export class AppLookups {
  private readonly inFlight = new Map<string, Promise<LookupAddress[]>>();

  constructor(
    private readonly resolver: HostResolver,
    private readonly limit: number,
  ) {}

  resolve(hostname: string): Promise<LookupAddress[]> {
    const known = addressesWithoutDns(hostname);
    if (known) return Promise.resolve(known);
    const key = hostname.toLowerCase();
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    if (this.inFlight.size >= this.limit) return Promise.reject(new TooManyLookupsError(hostname, this.limit));
    const lookup = this.resolver.resolve(hostname).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, lookup);
    return lookup;
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
