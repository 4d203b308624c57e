// npm start under a process supervisor: SIGTERM or SIGHUP to a process of its tree (npm, start.js, the API, Postgres,
// Redis) stops the whole tree, leaving no process behind, the API's port free and the data directory unlocked. The
// built start runs with throw-away data (initialised by the first case, kept by the next ones as by npm start) and ports
// of its own. The npm cases run the real `start` script under the real npm and sh; a stand-in `npm` on the PATH makes
// the script's `npm run build` a no-op (this run has built dist/).
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, listenError } from '../scripts/local-services.js';
import { eventually } from './support/eventually.js';
import { type TreeProcess, processTree, stillRunning } from './support/process-tree.js';
import { requireDist } from './support/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const realNpm = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'npm'))
  .find((path) => existsSync(path));
let scratch: string;
const noBuildDir = () => join(scratch, 'no-build');
const dataDir = () => join(scratch, 'data');

interface RunningStart {
  /** npm, or node running dist/scripts/start.js. */
  top: ChildProcess;
  port: number;
  /** Every process of the tree once the API was ready. */
  tree: TreeProcess[];
  output(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The one process of the tree whose command line matches. */
  find(pattern: RegExp): TreeProcess;
}
const started: RunningStart[] = [];

beforeAll(() => {
  requireDist();
  scratch = mkdtempSync(join(tmpdir(), 'toolgate-supervised-'));
  chmodSync(scratch, 0o755); // as root, Postgres runs as the `postgres` user, which must reach its data directory
  mkdirSync(noBuildDir());
  writeFileSync(join(noBuildDir(), 'npm'), '#!/bin/sh\n# the test run has built dist/ already\nexit 0\n', {
    mode: 0o755,
  });
});

afterEach(() => {
  // A failed case leaves nothing running for the next one.
  for (const run of started.splice(0)) for (const p of stillRunning(run.tree)) process.kill(p.pid, 'SIGKILL');
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Starts Toolgate (`npm start`, or `node dist/scripts/start.js`) and waits until its API is ready. */
async function start(via: 'npm' | 'node', env: Record<string, string> = {}): Promise<RunningStart> {
  const port = await freePort();
  const [command, args] = via === 'npm' ? [realNpm!, ['start']] : [process.execPath, ['dist/scripts/start.js']];
  const top = spawn(command, args, {
    cwd: root,
    env: {
      PATH: via === 'npm' ? `${noBuildDir()}${delimiter}${process.env.PATH}` : (process.env.PATH ?? ''),
      HOME: process.env.HOME ?? tmpdir(),
      TOOLGATE_DATA_DIR: dataDir(),
      PORT: String(port),
      WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  let output = '';
  top.stdout.on('data', (chunk) => (output += chunk));
  top.stderr.on('data', (chunk) => (output += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    top.once('close', (code, signal) => resolve({ code, signal })),
  );
  const run: RunningStart = {
    top,
    port,
    tree: [],
    output: () => output,
    exit,
    find(pattern) {
      const found = run.tree.filter((p) => pattern.test(p.args));
      expect(found, `${pattern} in ${JSON.stringify(run.tree, null, 1)}`).toHaveLength(1);
      return found[0];
    },
  };
  started.push(run);
  await eventually(
    async () => {
      if (top.exitCode !== null) throw new Error(`the start exited (${top.exitCode}):\n${output}`);
      expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    },
    { timeoutMs: 100_000, intervalMs: 200 },
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${output}`);
  });
  run.tree = processTree(top.pid!);
  return run;
}

/** Every process of the tree has gone, the API's port is free and Postgres's data directory unlocked. */
async function expectAllStopped(run: RunningStart): Promise<void> {
  await eventually(() => expect(stillRunning(run.tree), run.output()).toEqual([]), { timeoutMs: 30_000 });
  expect(await listenError(run.port, '::')).toBeUndefined();
  expect(existsSync(join(dataDir(), 'postgres/postmaster.pid'))).toBe(false);
}

describe('npm start', () => {
  it('runs start.js in place of the shell; SIGTERM to npm stops every process', async () => {
    const run = await start('npm');
    const startJs = run.find(/^\S*node dist\/scripts\/start\.js$/);
    expect(startJs.ppid).toBe(run.top.pid); // `exec`: no shell between npm and node to swallow the signal
    expect(run.tree.map((p) => p.args)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/apps\/api\/src\/main\.js$/),
        expect.stringMatching(/apps\/worker\/src\/main\.js$/),
        expect.stringMatching(/postgres -D /),
        expect.stringMatching(/redis-server /),
      ]),
    );
    run.top.kill('SIGTERM');
    await expectAllStopped(run);
    expect(run.output()).toContain('SIGTERM: stopping');
  }, 150_000);

  it('stops every process on SIGHUP to npm, which npm does not pass on', async () => {
    const run = await start('npm');
    run.top.kill('SIGHUP');
    await expectAllStopped(run);
    expect(run.output()).toContain('npm, which started Toolgate, has gone: stopping');
  }, 150_000);
});

describe('node dist/scripts/start.js', () => {
  let metricsDefault: Server | undefined;
  afterAll(() => metricsDefault?.close());

  it('moves the worker metrics off a taken 9464 when WORKER_METRICS_PORT is unset; SIGHUP stops all, exit 0', async () => {
    // Held here for the case, unless another program of this machine holds it already.
    metricsDefault = await new Promise<Server | undefined>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(9464, '127.0.0.1', () => resolve(server));
    });
    const run = await start('node', { WORKER_METRICS_PORT: '' });
    const moved = /port 9464 is in use: the worker's metrics listens on (\d+) instead \(set WORKER_METRICS_PORT/.exec(
      run.output(),
    );
    expect(moved, run.output()).not.toBeNull();
    await eventually(async () => expect((await fetch(`http://127.0.0.1:${moved![1]}/metrics`)).status).toBe(200));
    run.top.kill('SIGHUP');
    expect(await run.exit).toEqual({ code: 0, signal: null });
    await expectAllStopped(run);
  }, 150_000);

  it('stops the rest and exits 1 when the API is stopped (SIGHUP)', async () => {
    const run = await start('node');
    process.kill(run.find(/apps\/api\/src\/main\.js$/).pid, 'SIGHUP');
    expect(await run.exit).toEqual({ code: 1, signal: null });
    await expectAllStopped(run);
    expect(run.output()).toContain('API exited with code 0: stopping the rest');
  }, 150_000);

  it.each([
    ['Postgres', /postgres -D /, 'Postgres was told to shut down (smart shutdown)'],
    ['Redis', /redis-server /, 'Redis exited with code 0'],
  ])(
    'stops the rest and exits 1 when %s is stopped (SIGTERM)',
    async (_name, pattern, said) => {
      const run = await start('node');
      process.kill(run.find(pattern).pid, 'SIGTERM');
      expect(await run.exit).toEqual({ code: 1, signal: null });
      await expectAllStopped(run);
      expect(run.output()).toContain(`${said}: stopping the rest`);
    },
    150_000,
  );
});
