// Child processes the benchmark starts: every one is tracked and ended on exit, error or signal.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** @type {Set<TrackedProcess>} */
const children = new Set();

/**
 * A free TCP port on 127.0.0.1.
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error(`not a TCP address: ${address}`));
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * A child process the bench started, its output kept.
 * @typedef {object} TrackedProcess
 * @property {string} name
 * @property {import('node:child_process').ChildProcess} child
 * @property {number | undefined} pid
 * @property {Promise<{ code: number | null, signal: NodeJS.Signals | null }>} exited
 * @property {() => string} output
 * @property {() => boolean} alive
 * @property {(pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>} waitFor the match, once the output
 *   matches `pattern` (not global)
 * @property {(graceMs?: number) => Promise<void>} stop SIGTERM, then SIGKILL after graceMs
 */

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} name
 * @returns {TrackedProcess}
 */
function track(child, name) {
  let output = '';
  const keep = (/** @type {Buffer} */ chunk) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  /** @type {Promise<{ code: number | null, signal: NodeJS.Signals | null }>} */
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  /** @type {TrackedProcess} */
  const proc = {
    name,
    child,
    pid: child.pid,
    exited,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    async waitFor(pattern, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (!proc.alive())
          throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${output.slice(-3000)}`);
        if (Date.now() > until)
          throw new Error(`${name} did not print ${pattern} within ${timeoutMs} ms:\n${output.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    /** SIGTERM, then SIGKILL after graceMs. */
    async stop(graceMs = 3_000) {
      if (proc.alive()) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => proc.alive() && child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      children.delete(proc);
    },
  };
  children.add(proc);
  return proc;
}

/**
 * @typedef {object} StartOptions
 * @property {Record<string, string>} [env] the whole environment (plus PATH)
 * @property {string} [cwd]
 */

/**
 * Spawns `command args` with exactly `env` (plus PATH), output captured.
 * @param {string} name
 * @param {string} command
 * @param {string[]} args
 * @param {StartOptions} [options]
 */
export function start(name, command, args, { env = {}, cwd } = {}) {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return track(child, name);
}

/**
 * Forks a node module with an IPC channel.
 * @param {string} name
 * @param {string} modulePath
 * @param {StartOptions} [options]
 */
export function startForked(name, modulePath, { env = {}, cwd } = {}) {
  const child = fork(modulePath, [], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  return track(child, name);
}

/** Ends every tracked process (used on normal exit and on errors). */
export async function stopAll() {
  await Promise.all([...children].map((proc) => proc.stop().catch(() => undefined)));
}

/** Last resort on process exit: SIGKILL whatever is still running. */
export function killAllSync() {
  for (const proc of children) {
    try {
      if (proc.alive()) proc.child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/**
 * Resident set size in MiB from /proc/<pid>/status (VmRSS), or null when the process is gone (or never started).
 * @param {number | undefined} pid
 */
export function rssMiB(pid) {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Samples the RSS of the given pids every `everyMs` until stopped; keeps the max of each.
 * @param {Record<string, number | undefined>} pids
 */
export function sampleRss(pids, everyMs = 200) {
  const max = Object.fromEntries(Object.keys(pids).map((k) => [k, 0]));
  const tick = () => {
    for (const [key, pid] of Object.entries(pids)) {
      const value = rssMiB(pid);
      if (value !== null && value > max[key]) max[key] = value;
    }
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return max;
    },
  };
}
