import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeJwt, jwtVerify } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEVELOPMENT_JWT_SECRET } from '../libs/config/src/index.js';
import { applyLocalMode, startEmbeddedPostgres } from '../scripts/local-services.js';
import { eventually } from './support/eventually.js';
import { runningProcesses } from './support/process-tree.js';
import { requireDist, startAppProcess } from './support/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('npm run token', () => {
  it('prints only a token, signed with the development secret, without rebuilding a fresh build', async () => {
    requireDist();
    const run = spawnSync(
      process.execPath,
      ['scripts/run-built.mjs', 'token', 'agent', '--project', 'p1', '--agent', 'a1'],
      {
        cwd: root,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '' },
      },
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toBe(''); // nothing rebuilt, no banner
    const token = run.stdout.trim();
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await jwtVerify(token, new TextEncoder().encode(DEVELOPMENT_JWT_SECRET), { audience: 'toolgate' });
    expect(decodeJwt(token)).toMatchObject({ role: 'agent', project_id: 'p1', agent_id: 'a1' });
  });

  const token = (...args: string[]) =>
    spawnSync(process.execPath, ['scripts/run-built.mjs', 'token', ...args], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });

  it.each(['--help', '-h'])('%s prints the usage and exits 0', (flag) => {
    requireDist();
    const run = token(flag);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run token -- <role>/);
    expect(run.stderr).toBe('');
  });

  it.each([
    [['developer', 'dev_1', '--bogus'], "Unknown option '--bogus'"],
    [['developer', 'dev_1', 'extra'], 'unexpected argument extra'],
    [['operator', '--ttl', 'soon'], '--ttl soon is not a duration'],
    [['nobody'], 'usage: npm run token'],
  ])('refuses %j with the usage, exit 2 and no stack trace', (args, said) => {
    requireDist();
    const run = token(...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(said);
    expect(run.stderr).toContain('usage: npm run token');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a taken port', () => {
  let holder: Server;
  let taken: number;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '::', resolve));
    taken = (holder.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => holder.close(resolve)));

  it('stops npm start before it starts anything, naming PORT when the user set it', () => {
    requireDist();
    const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-taken-port-'));
    try {
      const run = spawnSync(process.execPath, ['dist/scripts/start.js'], {
        cwd: root,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', TOOLGATE_DATA_DIR: dataDir, PORT: String(taken) },
        timeout: 30_000,
      });
      expect(run.status, run.stdout + run.stderr).toBe(1);
      expect(run.stderr).toContain(
        `could not start: port ${taken} (PORT) is already in use by another process: set PORT to a free port`,
      );
      expect(run.stdout).not.toContain('embedded Postgres');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stops the API, naming PORT', async () => {
    const api = startAppProcess('api', {
      DATABASE_URL: inject('databaseUrl'),
      REDIS_URL: inject('redisUrl'),
      PORT: String(taken),
      WORKER_METRICS_PORT: '0',
    });
    const code = await new Promise<number | null>((resolve) => api.child.once('close', resolve));
    expect(code, api.output()).toBe(1);
    expect(api.output()).toContain(
      `Toolgate API could not start: port ${taken} (PORT) is already in use by another process: set PORT to a free port`,
    );
  }, 60_000);
});

describe('the API and the worker under npm start', () => {
  it('stop as on SIGTERM when start.js goes without stopping them (stop-with-parent.js)', async () => {
    requireDist();
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-orphan-'));
    try {
      // A stand-in for the API: says when SIGTERM reaches it. Its parent starts it as start.js does, then is killed.
      writeFileSync(
        join(dir, 'child.mjs'),
        `import { writeFileSync } from 'node:fs';
process.on('SIGTERM', () => { writeFileSync(${JSON.stringify(join(dir, 'stopped'))}, 'SIGTERM'); process.exit(0); });
process.send('ready');
setInterval(() => undefined, 1000);`,
      );
      const parent = spawn(
        process.execPath,
        [
          '-e',
          `const child = require('node:child_process').spawn(process.execPath,
  ['--import', ${JSON.stringify(pathToFileURL(join(root, 'dist/scripts/stop-with-parent.js')).href)},
   ${JSON.stringify(join(dir, 'child.mjs'))}], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
child.once('message', () => console.log(child.pid));
setInterval(() => undefined, 1000);`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const childPid = await new Promise<number>((resolve) =>
        parent.stdout.once('data', (line) => resolve(Number(line))),
      );
      parent.kill('SIGKILL');
      await eventually(() => expect(existsSync(join(dir, 'stopped'))).toBe(true), { timeoutMs: 10_000 });
      await eventually(() => expect(runningProcesses().map((p) => p.pid)).not.toContain(childPid));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm start local mode', () => {
  it('allows private handlers outside production, with a warning, unless told otherwise', () => {
    const local: NodeJS.ProcessEnv = {};
    expect(applyLocalMode(local)).toHaveLength(2);
    expect(local.ALLOW_PRIVATE_NETWORK).toBe('true');
    const production: NodeJS.ProcessEnv = { NODE_ENV: 'production' };
    expect(applyLocalMode(production)).toEqual([]);
    expect(production.ALLOW_PRIVATE_NETWORK).toBeUndefined();
    const guarded: NodeJS.ProcessEnv = { ALLOW_PRIVATE_NETWORK: 'false' };
    expect(applyLocalMode(guarded)).toEqual([]);
    expect(guarded.ALLOW_PRIVATE_NETWORK).toBe('false');
  });
});

describe.runIf(process.getuid?.() === 0)('the embedded Postgres, as root', () => {
  it('starts from a directory only root can enter', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-root-only-'));
    expect(statSync(dir).mode & 0o077).toBe(0);
    const postgres = await startEmbeddedPostgres(join(dir, 'postgres'), { persistent: false });
    try {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
    } finally {
      await postgres.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
