import { type RemoteInfo, createSocket } from 'node:dgram';
import { isIP } from 'node:net';

export interface DnsQuery {
  name: string;
  type: 'A' | 'AAAA' | number;
  at: number;
}

export interface TestDnsServer {
  /** `127.0.0.1:port`, for DNS_SERVERS. */
  address: string;
  /** Answers: name (lower case) → addresses; a name that is not here is NXDOMAIN. */
  records: Map<string, string[]>;
  /** Names that are never answered. */
  hanging: (name: string) => boolean;
  queries: DnsQuery[];
  stop(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

function readName(message: Buffer, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = start;
  while (message[at] !== 0) {
    const length = message[at];
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 1 };
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return Buffer.from(groups.flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 0xff]));
}

/** A reply to `query` with these answers (type A or AAAA), or the rcode (3: NXDOMAIN). */
function reply(query: Buffer, questionEnd: number, type: number, addresses: string[] | null): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  const family = type === TYPE_A ? 4 : 6;
  const answers = (addresses ?? []).filter((address) => isIP(address) === family);
  header.writeUInt16BE(0x8180 | (addresses === null ? 3 : 0), 2); // response, recursion desired + available
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  const records = answers.map((address) => {
    const data = family === 4 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(5, 6); // TTL
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}

/**
 * A DNS server of the tests' own over UDP on loopback (random port): answers A/AAAA from
 * `records`, NXDOMAIN for unknown names, and never answers the names `hanging` says.
 */
export async function startDnsServer(
  records: Record<string, string[]> = {},
  hanging: (name: string) => boolean = () => false,
): Promise<TestDnsServer> {
  const socket = createSocket('udp4');
  const server: TestDnsServer = {
    address: '',
    records: new Map(Object.entries(records).map(([name, addresses]) => [name.toLowerCase(), addresses])),
    hanging,
    queries: [],
    async stop() {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
  socket.on('message', (message: Buffer, peer: RemoteInfo) => {
    const { name, end } = readName(message, 12);
    const type = message.readUInt16BE(end);
    server.queries.push({ name, type: type === TYPE_A ? 'A' : type === TYPE_AAAA ? 'AAAA' : type, at: Date.now() });
    if (server.hanging(name)) return;
    const answer = reply(message, end + 4, type, server.records.get(name) ?? null);
    socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  server.address = `127.0.0.1:${socket.address().port}`;
  return server;
}
