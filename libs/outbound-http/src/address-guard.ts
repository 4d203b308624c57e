// SSRF guard: Toolgate sends webhooks and MCP calls only to public unicast addresses.
import type { LookupAddress } from 'node:dns';
import { BlockList, SocketAddress, isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { type AppLookups, HostResolver } from './host-resolver.js';

type Family = 'ipv4' | 'ipv6';

/** `cidr` (`network/prefix`) as a BlockList. */
function subnet(family: Family, cidr: string, list = new BlockList()): BlockList {
  const [network, prefix] = cidr.split('/');
  list.addSubnet(network, Number(prefix), family);
  return list;
}

/** The ranges of a table that share a label, one BlockList each, in the table's order (first match wins). */
function labelled(family: Family, table: [cidr: string, label: string][]): { label: string; list: BlockList }[] {
  const byLabel = new Map<string, BlockList>();
  for (const [cidr, label] of table) byLabel.set(label, subnet(family, cidr, byLabel.get(label)));
  return [...byLabel].map(([label, list]) => ({ label, list }));
}

// RFC 6890 / IANA special-purpose registry: none of these is a public unicast destination.
const IPV4_BLOCKED = labelled('ipv4', [
  ['0.0.0.0/8', 'unspecified ("this network") address'],
  ['10.0.0.0/8', 'private address'],
  ['100.64.0.0/10', 'shared (CGNAT) address'],
  ['127.0.0.0/8', 'loopback address'],
  ['169.254.0.0/16', 'link-local address'],
  ['172.16.0.0/12', 'private address'],
  ['192.0.0.0/24', 'IETF protocol assignment address'],
  ['192.0.2.0/24', 'documentation address'],
  ['192.88.99.0/24', '6to4 relay anycast address'],
  ['192.168.0.0/16', 'private address'],
  ['198.18.0.0/15', 'benchmarking address'],
  ['198.51.100.0/24', 'documentation address'],
  ['203.0.113.0/24', 'documentation address'],
  ['224.0.0.0/4', 'multicast address'],
  ['255.255.255.255/32', 'broadcast address'], // before 240/4, for the better reason
  ['240.0.0.0/4', 'reserved address'],
]);

const IPV6_BLOCKED = labelled('ipv6', [
  ['::/128', 'unspecified address'], // judged before the IPv4-compatible form, which contains it
  ['::1/128', 'loopback address'],
  ['100::/64', 'discard-only address'],
  ['2001:db8::/32', 'documentation address'],
  ['3fff::/20', 'documentation address'],
  ['2001::/23', 'IETF special-purpose address'], // includes Teredo 2001::/32
  ['fc00::/7', 'unique local address'],
  ['fe80::/10', 'link-local address'],
  ['fec0::/10', 'site-local address'],
  ['ff00::/8', 'multicast address'],
]);

// Forms that carry an IPv4 address: judged by the IPv4 rules. `group` is where its 32 bits start (of 8 groups).
const IPV6_EMBEDDING = [
  { label: 'IPv4-mapped', list: subnet('ipv6', '::ffff:0:0/96'), group: 6 },
  { label: 'IPv4-compatible', list: subnet('ipv6', '::/96'), group: 6 },
  { label: 'NAT64', list: subnet('ipv6', '64:ff9b::/96'), group: 6 },
  { label: '6to4', list: subnet('ipv6', '2002::/16'), group: 1 },
];

const GLOBAL_UNICAST = subnet('ipv6', '2000::/3');

/** The eight 16-bit groups of a valid IPv6 literal (no zone). */
function ipv6Groups(ip: string): number[] {
  // the URL parser writes it canonically: hex groups only (no dotted quad), zeros as one `::` at most
  const [head, tail] = new URL(`http://[${ip}]/`).hostname.slice(1, -1).split('::');
  const groups = head ? head.split(':') : [];
  if (tail !== undefined) {
    const after = tail ? tail.split(':') : [];
    groups.push(...Array<string>(8 - groups.length - after.length).fill('0'), ...after);
  }
  return groups.map((group) => parseInt(group, 16));
}

function ipv4Reason(ip: string): string | null {
  const address = new SocketAddress({ address: ip, family: 'ipv4' });
  const blocked = IPV4_BLOCKED.find(({ list }) => list.check(address));
  return blocked ? `${blocked.label} ${ip}` : null;
}

/**
 * Null when `ip` (an IPv4 or IPv6 literal, as dns.lookup returns) is a public unicast address,
 * otherwise why it is refused, e.g. 'loopback address 127.0.0.1'.
 */
export function blockedAddressReason(ip: string): string | null {
  // a zone id (fe80::1%eth0) only says which interface: judge the address without it
  const bare = ip.includes(':') ? ip.split('%')[0] : ip;
  const family = isIP(bare);
  if (family === 4) return ipv4Reason(bare);
  if (family !== 6) return `not an IP address: ${JSON.stringify(ip)}`;
  const address = new SocketAddress({ address: bare, family: 'ipv6' });
  // the special ranges and the embedding forms meet only at :: and ::1, which these judge
  const blocked = IPV6_BLOCKED.find(({ list }) => list.check(address));
  if (blocked) return `${blocked.label} ${ip}`;
  const embedding = IPV6_EMBEDDING.find(({ list }) => list.check(address));
  if (embedding) {
    const [high, low] = ipv6Groups(bare).slice(embedding.group, embedding.group + 2);
    const reason = ipv4Reason(`${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`);
    return reason ? `${reason} (${embedding.label} in ${ip})` : null;
  }
  // everything outside 2000::/3 is unassigned or special today
  return GLOBAL_UNICAST.check(address) ? null : `reserved address ${ip}`;
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
 * Why `url` may not be reached when its host is a blocked IP literal, or null (a name is judged by guardedLookup
 * when it resolves). Needed besides guardedLookup because net.connect does not call `lookup` for an IP literal.
 */
export function urlHostRefusal(url: URL, allowPrivate: boolean): BlockedAddressError | null {
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isIP(host)) return null; // a name: guardedLookup judges what it resolves to
  const reason = blockedAddressReason(host);
  return reason ? new BlockedAddressError(host, reason) : null;
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
