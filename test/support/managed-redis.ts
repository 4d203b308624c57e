// Local redis-server processes set up as managed Redis is: TLS with a CA of the test's own, an ACL user with a
// password, a three-master Redis Cluster on loopback ports. Each lives in a temporary directory of its own.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { findRedisServerBinary, freePort } from '../../scripts/local-services.js';
import { eventually } from './eventually.js';

export interface RedisServer {
  stop(): Promise<void>;
}

/** A temporary directory, removed by the returned function. */
export function scratchDir(name: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `toolgate-${name}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts redis-server on loopback with `args` (its ports among them) after the test defaults (no persistence, `hz 100`
 * for BullMQ's delayed jobs); resolves once it listens.
 */
export async function startRedisServer(dir: string, args: string[]): Promise<RedisServer> {
  const binary = findRedisServerBinary();
  if (!binary) throw new Error('redis-server is not on the PATH (Debian: apt-get install redis-server)');
  const defaults = ['--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--hz', '100'];
  const child: ChildProcess = spawn(binary, [...defaults, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`redis-server exited:\n${output}`);
      if (!output.includes('Ready to accept connections')) throw new Error(`redis-server is not ready:\n${output}`);
    },
    { timeoutMs: 10_000, intervalMs: 20 },
  ).catch((error: Error) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A CA of the test's own and a certificate it signed for 127.0.0.1 and localhost. */
export function makeCertificates(dir: string): { caFile: string; certFile: string; keyFile: string } {
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Toolgate test CA',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.crt'),
  );
  writeFileSync(path('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    path('server.key'),
    '-out',
    path('server.csr'),
  );
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.crt'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    path('server.ext'),
    '-out',
    path('server.crt'),
  );
  return { caFile: path('ca.crt'), certFile: path('server.crt'), keyFile: path('server.key') };
}

export interface LocalCluster {
  /** The masters' ports. */
  ports: number[];
  /** A cluster connection for the test itself. */
  connect(options?: RedisOptions): Cluster;
  stop(): Promise<void>;
}

/** Three masters on loopback ports, their slots assigned by `redis-cli --cluster create`; resolves once the cluster is ok. */
export async function startRedisCluster(dir: string): Promise<LocalCluster> {
  const servers: RedisServer[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const nodeDir = join(dir, `node${i}`);
      mkdirSync(nodeDir, { recursive: true });
      const [port, busPort] = [await freePort(), await freePort()];
      ports.push(port);
      servers.push(
        await startRedisServer(nodeDir, [
          '--port',
          String(port),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(nodeDir, 'nodes.conf'),
          '--cluster-port',
          String(busPort),
          '--cluster-node-timeout',
          '5000',
        ]),
      );
    }
    execFileSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'],
      { stdio: 'pipe' },
    );
    for (const port of ports) {
      await eventually(
        async () => {
          const node = new Redis(port, '127.0.0.1', { lazyConnect: true });
          try {
            const info = await node.call('CLUSTER', 'INFO');
            if (!String(info).includes('cluster_state:ok')) throw new Error(`node ${port}: ${String(info)}`);
          } finally {
            node.disconnect();
          }
        },
        { timeoutMs: 15_000, intervalMs: 100 },
      );
    }
    return {
      ports,
      connect: (options = {}) => new Cluster([{ host: '127.0.0.1', port: ports[0] }], { redisOptions: options }),
      stop: async () => {
        await Promise.all(servers.map((server) => server.stop()));
      },
    };
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    throw error;
  }
}
