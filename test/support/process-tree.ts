import { execFileSync } from 'node:child_process';

export interface TreeProcess {
  pid: number;
  ppid: number;
  args: string;
}

/** The processes now running (zombies, which have exited and wait to be reaped, left out), from `ps`. */
export function runningProcesses(): TreeProcess[] {
  return execFileSync('ps', ['-A', '-o', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null && !match[3].startsWith('Z'))
    .map((match) => ({ pid: Number(match![1]), ppid: Number(match![2]), args: match![4] }));
}

/** `root` and every process below it. */
export function processTree(root: number): TreeProcess[] {
  const all = runningProcesses();
  const tree = all.filter((p) => p.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...all.filter((p) => p.ppid === tree[i].pid));
  return tree;
}

/** Those of `processes` still running. */
export function stillRunning(processes: TreeProcess[]): TreeProcess[] {
  const running = new Set(runningProcesses().map((p) => p.pid));
  return processes.filter((p) => running.has(p.pid));
}
