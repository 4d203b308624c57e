// CPU time of processes from /proc: who spends the machine's two cores during a measurement.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * user+system CPU ms of a pid, or null when it is gone; `withReaped`: plus that of its children that ended (a
 * Postgres postmaster's: the backends that exited).
 * @param {number | string} pid
 */
export function cpuMs(pid, { withReaped = false } = {}) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const reaped = withReaped ? Number(fields[13]) + Number(fields[14]) : 0;
    return ((Number(fields[11]) + Number(fields[12]) + reaped) * 1000) / TICKS;
  } catch {
    return null;
  }
}

/**
 * Every process whose name is `comm` (e.g. every Postgres backend), pid -> CPU ms, each with its ended children's:
 * a backend that exits during a measurement leaves its CPU in the postmaster's count, not nowhere.
 * @param {string} comm
 */
function cpuByComm(comm) {
  const out = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== comm) continue;
    } catch {
      continue;
    }
    const ms = cpuMs(entry, { withReaped: true });
    if (ms !== null) out.set(entry, ms);
  }
  return out;
}

/** Busy and total jiffies of the whole machine (/proc/stat). */
function machine() {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = values.map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = n[3] + n[4];
  return { busy: total - idle, total };
}

/**
 * CPU ms per unit of work of each named process and of Postgres, the machine's busy share (%) and the wall time (ms).
 * @typedef {{ postgres: number, machine_busy_pct: number, wall_ms: number } & Record<string, number>} CpuPerCall
 */

/**
 * Starts a CPU measurement of the named pids, plus every `postgres` process (the machine's
 * Postgres: other users of it count too) and the whole machine. `stop(n)` gives CPU ms per
 * unit of work (n calls) for each, and the machine's busy share in %.
 * @param {Record<string, number | undefined>} pids
 */
export function cpuProbe(pids) {
  /** @type {[name: string, pid: number, before: number][]} */
  const named = Object.entries(pids).flatMap(([name, pid]) => (pid ? [[name, pid, cpuMs(pid) ?? 0]] : []));
  const pg = cpuByComm('postgres');
  const m0 = machine();
  const t0 = performance.now();
  return {
    /** @param {number} n @returns {CpuPerCall} */
    stop(n) {
      const wallMs = performance.now() - t0;
      /** @type {Record<string, number>} */
      const out = {};
      for (const [name, pid, before] of named) out[name] = ((cpuMs(pid) ?? before) - before) / n;
      // A backend that ended meanwhile: the postmaster's count took its whole life's CPU; what it had spent before
      // the measurement comes off. (Before this, the CPU of backends that ended was not counted at all.)
      let pgMs = 0;
      const pgAfter = cpuByComm('postgres');
      for (const [pid, after] of pgAfter) pgMs += after - (pg.get(pid) ?? 0);
      for (const [pid, before] of pg) if (!pgAfter.has(pid)) pgMs -= before;
      const m1 = machine();
      return {
        ...out,
        postgres: pgMs / n,
        machine_busy_pct: (100 * (m1.busy - m0.busy)) / Math.max(1, m1.total - m0.total),
        wall_ms: wallMs,
      };
    },
  };
}
