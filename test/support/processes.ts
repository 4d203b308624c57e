import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
let built = false;

/** Compiles the apps to dist/ once per test process, for tests that run them as real processes. */
export function buildDist(): void {
  if (built) return;
  const result = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tsc failed:\n${result.stdout}${result.stderr}`);
  if (!existsSync(`${root}/dist/apps/worker/src/main.js`)) throw new Error('dist/apps/worker/src/main.js missing after build');
  built = true;
}

export interface AppProcess {
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/** Runs `dist/apps/<name>/src/main.js` with exactly the given environment (plus PATH). */
export function startAppProcess(name: 'api' | 'worker', env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, [`${root}/dist/apps/${name}/src/main.js`], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => output,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
    async waitForOutput(pattern, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${output}`);
        if (Date.now() > until) throw new Error(`${name} did not print ${pattern}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
