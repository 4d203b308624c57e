import { type Server, type Socket, connect, createServer } from 'node:net';

export type ProxyMode = 'up' | 'down' | 'silent';

export interface TcpProxy {
  port: number;
  /**
   * up: forwards; down: refuses connections and drops open ones (a stopped server); silent: open
   * and new connections stay open and never answer.
   */
  set(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of a real service (Postgres, Redis), so that a test can take
 * the service away from one app only: every other test file keeps using the service itself.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let mode: ProxyMode = 'up';
  let server: Server | undefined;
  let port = 0;

  const onConnection = (client: Socket) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (mode === 'silent') return;
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const listen = async () => {
    server = createServer(onConnection);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as { port: number }).port;
  };
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  // Open connections stay open but nothing passes any more: requests sent on them get no answer.
  const freezeAll = () => {
    for (const [client, upstream] of pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  };
  const stopListening = async () => {
    const closing = server;
    server = undefined;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  await listen();
  return {
    port,
    async set(next) {
      if (next === mode) return;
      mode = next;
      if (next === 'silent') freezeAll();
      else dropAll();
      if (next === 'down') await stopListening();
      else if (!server) await listen();
    },
    async close() {
      dropAll();
      await stopListening();
    },
  };
}
