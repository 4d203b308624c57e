// Child processes the benchmark starts: every one is tracked and ended on exit, error or signal.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';

const children = new Set();

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function track(child, name) {
  let output = '';
  const keep = (chunk) => {
    output += chunk;
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const proc = {
    name,
    child,
    pid: child.pid,
    exited,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    async waitFor(pattern, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (!proc.alive())
          throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${output.slice(-3000)}`);
        if (Date.now() > until)
          throw new Error(`${name} did not print ${pattern} within ${timeoutMs} ms:\n${output.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return output.match(pattern);
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

/** Spawns `command args` with exactly `env` (plus PATH), output captured. */
export function start(name, command, args, { env = {}, cwd } = {}) {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return track(child, name);
}

/** Forks a node module with an IPC channel. */
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

/** Resident set size in MiB from /proc/<pid>/status (VmRSS), or null when the process is gone. */
export function rssMiB(pid) {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Samples the RSS of the given pids every `everyMs` until stopped; keeps the max of each. */
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
