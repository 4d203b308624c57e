// SSRF guard: Toolgate sends webhooks and MCP calls only to public unicast addresses.
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { type AppLookups, HostResolver } from './host-resolver.js';

type Range = [base: bigint, prefix: number, label: string];

/** `base/prefix` in a family of `bits` bits (32 or 128) as a range. */
function range(cidr: string, label: string, bits: 32 | 128): Range {
  const [base, prefix] = cidr.split('/');
  return [bits === 32 ? ipv4Value(base) : ipv6Value(base), Number(prefix), label];
}

function inRange(value: bigint, [base, prefix]: Range, bits: number): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === base >> shift;
}

// RFC 6890 / IANA special-purpose registry: none of these is a public unicast destination.
const IPV4_BLOCKED: Range[] = [
  range('0.0.0.0/8', 'unspecified ("this network") address', 32),
  range('10.0.0.0/8', 'private address', 32),
  range('100.64.0.0/10', 'shared (CGNAT) address', 32),
  range('127.0.0.0/8', 'loopback address', 32),
  range('169.254.0.0/16', 'link-local address', 32),
  range('172.16.0.0/12', 'private address', 32),
  range('192.0.0.0/24', 'IETF protocol assignment address', 32),
  range('192.0.2.0/24', 'documentation address', 32),
  range('192.88.99.0/24', '6to4 relay anycast address', 32),
  range('192.168.0.0/16', 'private address', 32),
  range('198.18.0.0/15', 'benchmarking address', 32),
  range('198.51.100.0/24', 'documentation address', 32),
  range('203.0.113.0/24', 'documentation address', 32),
  range('224.0.0.0/4', 'multicast address', 32),
  range('255.255.255.255/32', 'broadcast address', 32), // before 240/4, for the better reason
  range('240.0.0.0/4', 'reserved address', 32),
];

const IPV6_BLOCKED: Range[] = [
  range('100::/64', 'discard-only address', 128),
  range('2001:db8::/32', 'documentation address', 128),
  range('3fff::/20', 'documentation address', 128),
  range('2001::/23', 'IETF special-purpose address', 128), // includes Teredo 2001::/32
  range('fc00::/7', 'unique local address', 128),
  range('fe80::/10', 'link-local address', 128),
  range('fec0::/10', 'site-local address', 128),
  range('ff00::/8', 'multicast address', 128),
];

// Forms that carry an IPv4 address: judged by the IPv4 rules. `shift` finds the 32 embedded bits.
const IPV6_EMBEDDING: { range: Range; shift: bigint }[] = [
  { range: range('::ffff:0:0/96', 'IPv4-mapped', 128), shift: 0n },
  { range: range('::/96', 'IPv4-compatible', 128), shift: 0n },
  { range: range('64:ff9b::/96', 'NAT64', 128), shift: 0n },
  { range: range('2002::/16', '6to4', 128), shift: 80n },
];

const GLOBAL_UNICAST = range('2000::/3', 'global unicast', 128);

function ipv4Value(ip: string): bigint {
  return ip.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

function ipv4String(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** A syntactically valid IPv6 literal (no zone) as a 128-bit number. */
function ipv6Value(ip: string): bigint {
  let text = ip;
  if (text.includes('.')) {
    // a trailing dotted quad is the last two 16-bit groups
    const at = text.lastIndexOf(':') + 1;
    const v4 = ipv4Value(text.slice(at));
    text = `${text.slice(0, at)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = head ? head.split(':') : [];
  if (tail !== undefined) {
    const after = tail ? tail.split(':') : [];
    groups.push(...Array<string>(8 - groups.length - after.length).fill('0'), ...after);
  }
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function ipv4Reason(value: bigint): string | null {
  const blocked = IPV4_BLOCKED.find((r) => inRange(value, r, 32));
  return blocked ? `${blocked[2]} ${ipv4String(value)}` : null;
}

/**
 * Null when `ip` (an IPv4 or IPv6 literal, as dns.lookup returns) is a public unicast address,
 * otherwise why it is refused, e.g. 'loopback address 127.0.0.1'.
 */
export function blockedAddressReason(ip: string): string | null {
  // a zone id (fe80::1%eth0) only says which interface: judge the address without it
  const bare = ip.includes(':') ? ip.split('%')[0] : ip;
  const family = isIP(bare);
  if (family === 4) return ipv4Reason(ipv4Value(bare));
  if (family !== 6) return `not an IP address: ${JSON.stringify(ip)}`;
  const value = ipv6Value(bare);
  if (value === 0n) return `unspecified address ${ip}`;
  if (value === 1n) return `loopback address ${ip}`;
  for (const { range: r, shift } of IPV6_EMBEDDING) {
    if (!inRange(value, r, 128)) continue;
    const reason = ipv4Reason((value >> shift) & 0xffffffffn);
    return reason ? `${reason} (${r[2]} in ${ip})` : null;
  }
  const blocked = IPV6_BLOCKED.find((r) => inRange(value, r, 128));
  if (blocked) return `${blocked[2]} ${ip}`;
  // everything outside 2000::/3 is unassigned or special today
  return inRange(value, GLOBAL_UNICAST, 128) ? null : `reserved address ${ip}`;
}

export class BlockedAddressError extends Error {
  readonly code = 'BLOCKED_ADDRESS';

  constructor(
    readonly host: string,
    /** The refused address and why: for logs and tests, never for a message (an internal DNS oracle). */
    readonly reason: string,
  ) {
    // An IP literal is what the developer typed; what a name resolves to is not theirs to learn.
    const what = isIP(host) ? `is not public (${reason})` : 'resolves to a non-public address';
    super(
      `host "${host}" ${what}: Toolgate only connects to public addresses (ALLOW_PRIVATE_NETWORK=true lifts this for local development)`,
    );
    this.name = 'BlockedAddressError';
  }
}

/** Resolves a host name to every address it has. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

/**
 * A `net.LookupFunction` for undici's `connect.lookup`: resolves every address of `hostname` with
 * `resolve` (c-ares, not the thread pool) and, unless `allowPrivate`, fails if any is blocked. Only
 * the addresses checked are handed back, so the socket connects to a checked address (no second
 * resolution to rebind).
 */
export function guardedLookup(
  allowPrivate: boolean,
  resolve: ResolveHost = (host) => defaultResolver().resolve(host),
): LookupFunction {
  return (hostname, options, callback) => {
    const finish = (err: NodeJS.ErrnoException | null, found: LookupAddress[]) => {
      const wanted =
        options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
      if (!err && wanted.length === 0)
        err = Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
      if (!err && !allowPrivate) {
        const reason = found.map((a) => blockedAddressReason(a.address)).find((r) => r !== null);
        if (reason) err = new BlockedAddressError(hostname, reason);
      }
      if (err) callback(err, options.all ? [] : '');
      else if (options.all) callback(null, wanted);
      else callback(null, wanted[0].address, wanted[0].family);
    };
    resolve(hostname).then(
      (addresses) => finish(null, addresses),
      (error: NodeJS.ErrnoException) => finish(error, []),
    );
  };
}

let sharedResolver: HostResolver | undefined;
function defaultResolver(): HostResolver {
  return (sharedResolver ??= new HostResolver());
}

/**
 * Throws BlockedAddressError when `url` names a blocked IP literal. Needed besides guardedLookup
 * because net.connect does not call `lookup` for an IP literal host.
 */
export function assertUrlHostAllowed(url: URL, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isIP(host)) return; // a name: guardedLookup judges what it resolves to
  const reason = blockedAddressReason(host);
  if (reason) throw new BlockedAddressError(host, reason);
}

/**
 * An undici Agent whose connections only reach public addresses (unless `allowPrivate`): names
 * through `lookups` (one app's bounded c-ares lookups), IP literals checked at connect time too,
 * whatever URL (a redirect's included) they came from.
 */
export function createGuardedAgent(options: {
  allowPrivate: boolean;
  lookups?: AppLookups;
  connectTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
}): Agent {
  const lookup = guardedLookup(options.allowPrivate, options.lookups && ((host) => options.lookups!.resolve(host)));
  const connector = buildConnector({ lookup, timeout: options.connectTimeoutMs ?? 10_000 });
  return new Agent({
    connect: (connectOptions, callback) => {
      const host = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
      const reason = !options.allowPrivate && isIP(host) ? blockedAddressReason(host) : null;
      if (reason) callback(new BlockedAddressError(host, reason), null);
      else connector(connectOptions, callback);
    },
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
  });
}
