#!/usr/bin/env node
// Diagnostic: where the API's and the worker's CPU goes under a steady load, from Linux `perf` (real CPU samples of
// every thread, kernel included), not V8's --cpu-prof (a wall-time sampler: it counts a write that waits for a core
// as time spent in `writev`). For each MODE (instant, background, mcp: server-everything's echo on the REST route, or
// mcp-agent: the same echo through the agent's MCP endpoint with K SDK clients, row 5's path; instant-floor: instant
// calls to bench/instant-floor-server.mjs, the floor of their work, in the API's place; queued-floor: background calls
// to bench/queued-floor-accept.mjs and -deliver.mjs, in the API's and the worker's places; a comma-separated list runs
// each on its own stack) it starts one handler, one redis-server and Toolgate (fresh schema) with V8's jitdump
// (`--perf-prof`), sends calls with K in flight, and after W seconds of warm-up records `perf record -k mono -g` of
// both processes and of every Postgres process for D seconds; `perf inject --jit` then names the JavaScript frames.
// Each sample of the API or the worker goes to the nearest JavaScript frame's package or Toolgate file (so a V8
// builtin or a C++ binding counts for the code that called it), else to the kernel, the garbage collector or the
// native code it ran in; each Postgres sample to what it was doing (POSTGRES_WORK: index writes, commits...).
// Usage: npm run build && MODE=instant,background K=50 D=10 node bench/perf-profile.mjs [--results]
//   --results: writes the section "Where the CPU goes: real CPU samples (perf)" of bench/RESULTS.md.
//   PERF_KEEP=file: keeps the samples (`perf script` text, JavaScript frames named) of the last MODE there.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { CALL_ARGUMENTS } from './lib/body.mjs';
import { codeOwnerOf } from './lib/code-owner.mjs';
import { agentMcpClient, constructorApp, echoOnce, httpTool, loadTarget, toolCallRequest } from './lib/fixtures.mjs';
import { killAllSync, stopAll } from './lib/procs.mjs';
import {
  startEverything,
  startHandler,
  startInstantFloor,
  startQueuedFloor,
  startRedis,
  startToolgate,
} from './lib/stack.mjs';

const MODES = (process.env.MODE ?? 'instant').split(',');
const K = Number(process.env.K ?? 50);
const D = Number(process.env.D ?? 10);
const W = Number(process.env.W ?? 15);
const RESULTS = process.argv.includes('--results');
const TOP = Number(process.env.PERF_TOP ?? 14);
const PERF_NODE_OPTIONS = '--perf-prof --interpreted-frames-native-stack';

if (spawnSync('perf', ['--version']).status !== 0) {
  console.error('bench/perf-profile.mjs needs Linux perf on the PATH (Debian: apt install linux-perf).');
  process.exit(2);
}
const KNOWN_MODES = ['instant', 'instant-floor', 'background', 'queued-floor', 'mcp', 'mcp-agent'];
if (!MODES.every((mode) => KNOWN_MODES.includes(mode))) {
  console.error(`MODE must list ${KNOWN_MODES.join(', ')} (got "${MODES.join(',')}")`);
  process.exit(2);
}
process.on('exit', killAllSync);
const dir = mkdtempSync(join(tmpdir(), 'toolgate-perf-'));
const log = (message) => console.error(`[perf ${new Date().toISOString().slice(11, 19)}] ${message}`);

/** Runs a command to its end; its output when it succeeded, else throws with it. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr.slice(-2000)}`);
  return result.stdout;
}

/** The load: calls of MODE, K in flight, until `stop()`; `count()` says how many were answered. */
async function startLoad(MODE, stack, handler, everything, nodeOptions) {
  const everythingUrl = everything?.url;
  const target = { 'instant-floor': 'instant', 'queued-floor': 'background' }[MODE] ?? MODE;
  const { agent, tool } = await loadTarget(stack, 'perf', target, {
    handlerUrl: `${handler.url}/ok/perf`,
    everythingUrl,
  });
  // instant-floor: the same calls to bench/instant-floor-server.mjs, which stands in for the API; queued-floor: to
  // bench/queued-floor-accept.mjs and -deliver.mjs, which stand in for the API and the worker (an app of their own).
  let server = { pid: stack.api.pid, workerPid: stack.worker.pid, url: stack.baseUrl };
  if (MODE === 'instant-floor') {
    const floor = await startInstantFloor(stack, `${handler.url}/ok/perf`, tool, { nodeOptions, cwd: dir });
    server = { ...floor, workerPid: stack.worker.pid };
  } else if (MODE === 'queued-floor') {
    const { app } = await constructorApp(stack, 'perffloor', [httpTool('t', `${handler.url}/ok/perf`, 'background')]);
    const floor = await startQueuedFloor(stack, {
      appId: app.id,
      handlerUrl: `${handler.url}/ok/perf`,
      tool,
      redisUrl: stack.env.REDIS_URL,
      nodeOptions,
      cwd: dir,
    });
    server = { pid: floor.acceptPid, workerPid: floor.deliverPid, url: floor.url, stop: floor.stop };
  }
  const mcpClients =
    MODE === 'mcp-agent' ? await Promise.all(Array.from({ length: K }, () => agentMcpClient(stack, agent))) : [];
  const pool = new Pool(server.url, { connections: K });
  const request = toolCallRequest(agent, tool, everything ? { message: 'hello' } : CALL_ARGUMENTS);
  let answered = 0;
  let stopped = false;
  const loops = Array.from({ length: K }, async (_, k) => {
    while (!stopped) {
      if (mcpClients.length) {
        await echoOnce(mcpClients[k], tool, 'hello');
      } else {
        const response = await pool.request(request);
        await response.body.dump();
        if (response.statusCode >= 300) throw new Error(`status ${response.statusCode}`);
      }
      answered += 1;
    }
  });
  return {
    pid: server.pid,
    workerPid: server.workerPid,
    count: () => answered,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      await pool.close();
      await server.stop?.();
      await Promise.all(mcpClients.map((client) => client.close().catch(() => undefined)));
    },
  };
}

/** Where a sample's CPU goes: the nearest JavaScript frame's package or file, else what its leaf ran in. */
function bucketOf(frames) {
  const [leaf] = frames;
  if (leaf.dso.includes('kernel')) return 'kernel (syscalls, loopback TCP, scheduling)';
  if (/Scaveng|MarkCompact|Marking|Sweep|Evacuat|Heap::|GCTracer|MinorGC|ConcurrentMarking/.test(leaf.symbol)) {
    return 'V8 garbage collector';
  }
  for (const { symbol } of frames) {
    const js = /^JS:[*^~]?\S* (\S+?):\d+:\d+/.exec(symbol);
    if (js) return codeOwnerOf(js[1]);
  }
  if (/llhttp|Parser::/.test(leaf.symbol)) return 'node:http parser (llhttp, native)';
  if (leaf.dso.includes('libc')) return 'libc (no JavaScript caller)';
  if (/v8::internal::compiler|Turbofan|Maglev|OptimizedCompilationJob/.test(leaf.symbol)) {
    return 'V8 optimizing compiler (background)';
  }
  if (/^(v8::|Builtins?[_:])/.test(leaf.symbol)) return 'V8 runtime and builtins (no JavaScript caller)';
  if (/^(node::|uv_|uv__)/.test(leaf.symbol)) return 'node and libuv (C++, no JavaScript caller)';
  return 'native, other (no JavaScript caller)';
}

/** `perf script` text: samples of each pid, leaf frame first. */
function* samples(text) {
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    const header = /^\S+\s+(\d+)/.exec(lines[0] ?? '');
    if (!header || lines.length < 2) continue;
    const frames = lines.slice(1).map((line) => {
      const match = /^\s*[0-9a-f]+\s+(.*?)(?:\+0x[0-9a-f]+)?\s+\((.*)\)\s*$/.exec(line);
      return match ? { symbol: match[1], dso: match[2] } : { symbol: line.trim(), dso: '' };
    });
    yield { pid: Number(header[1]), frames };
  }
}

const pct = (n, total) => `${((100 * n) / total).toFixed(1).padStart(5)} %`;

function summarize(name, list) {
  const total = list.length;
  const buckets = new Map();
  const leaves = new Map();
  for (const frames of list) {
    const bucket = bucketOf(frames);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
    const leaf = frames[0].symbol.replace(/^JS:[*^~]?/, '');
    leaves.set(leaf, (leaves.get(leaf) ?? 0) + 1);
  }
  const top = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([key, n]) => `${pct(n, total)}  ${key.length > 110 ? `${key.slice(0, 107)}...` : key}`)
      .join('\n');
  return (
    `### ${name}: ${total} samples\n\nBy the nearest JavaScript frame's package or Toolgate file (builtins and ` +
    `bindings count for their caller):\n\n\`\`\`\n${top(buckets)}\n\`\`\`\n\nHottest leaf functions:\n\n` +
    `\`\`\`\n${top(leaves)}\n\`\`\`\n`
  );
}

/** The machine's Postgres processes: pid → what it is (`postgres: walwriter`, a backend's `user db host state`). */
function postgresProcesses() {
  const out = spawnSync('ps', ['-C', 'postgres', '-o', 'pid=,args='], { encoding: 'utf8' }).stdout ?? '';
  const processes = new Map();
  for (const line of out.split('\n')) {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (match) processes.set(Number(match[1]), match[2]);
  }
  return processes;
}

/**
 * What a Postgres sample was doing, by the first of these found anywhere on its stack, in this order of precedence
 * (an index scan inside a foreign-key check counts for the check). Postgres's own symbols: Debian's build
 * keeps the exported ones, and these are.
 */
const POSTGRES_WORK = [
  ['commit: the WAL flushed to disk (fdatasync)', /XLogFlush|issue_xlog_fsync|fdatasync/],
  ['foreign-key checks', /RI_FKey|ri_PerformCheck|AfterTriggerEndQuery|SPI_execute/],
  ['index entries written (inserts, non-HOT updates)', /ExecInsertIndexTuples|btinsert|_bt_doinsert/],
  ['index lookups', /index_getnext|btgettuple|_bt_first|index_fetch_heap/],
  ['rows inserted and updated, other (heap, constraints)', /heap_insert|heap_update|ExecUpdate|ExecInsert/],
  ['plan cache and planning', /GetCachedPlan|BuildCachedPlan|pg_plan_quer|standard_planner/],
  ['parse, bind, describe', /exec_parse_message|exec_bind_message|exec_describe|raw_parser/],
  ['commit and transaction, other', /CommitTransaction|StartTransaction|RecordTransactionCommit/],
  ['executor, other', /standard_Executor|ExecInitNode|ExecScan|ExecProcNode|ExecutePlan/],
  ['the client protocol (reading, sending)', /pq_getbyte|pq_getmessage|pq_flush|secure_read|secure_write|printtup/],
];

function postgresWorkOf(frames) {
  for (const [name, pattern] of POSTGRES_WORK) if (frames.some((frame) => pattern.test(frame.symbol))) return name;
  return frames[0].dso.includes('kernel') ? 'kernel, other (scheduling, waiting)' : 'other';
}

/** The Postgres processes' samples: by what they did, and by process (backends, WAL writer, checkpointer...). */
function summarizePostgres(MODE, list, processes, byPid) {
  const count = (pairs) => {
    const map = new Map();
    for (const key of pairs) map.set(key, (map.get(key) ?? 0) + 1);
    return [...map].sort((a, b) => b[1] - a[1]);
  };
  const lines = (rows) => rows.map(([key, n]) => `${pct(n, list.length)}  ${key}`).join('\n');
  const role = (args) => (/^postgres: \S+ \S+ \S+ /.test(args) ? "backends (the clients' connections)" : args);
  const byRole = count([...processes].flatMap(([pid, args]) => (byPid.get(pid) ?? []).map(() => role(args))));
  return (
    `### ${MODE} calls: Postgres (every postgres process): ${list.length} samples\n\nBy what the sample was ` +
    `doing (the first of bench/perf-profile.mjs's POSTGRES_WORK found on its stack):\n\n` +
    `\`\`\`\n${lines(count(list.map(postgresWorkOf)))}\n\`\`\`\n\nBy process:\n\n` +
    `\`\`\`\n${lines(byRole)}\n\`\`\`\n`
  );
}

/** One MODE on its own stack: the section of the report for it. */
async function profile(MODE) {
  const handler = await startHandler();
  const everything = MODE.startsWith('mcp') ? await startEverything() : null;
  const redis = await startRedis();
  const stack = await startToolgate({
    redisUrl: redis.url,
    label: `perf-${MODE}`,
    cwd: dir,
    extraEnv: { NODE_OPTIONS: PERF_NODE_OPTIONS },
  });
  const load = await startLoad(MODE, stack, handler, everything, PERF_NODE_OPTIONS);
  log(`${MODE}, ${K} in flight: warming up ${W} s, then recording ${D} s`);
  await new Promise((resolve) => setTimeout(resolve, W * 1000));
  const before = load.count();
  // Every Postgres process on the machine, as the CPU table of run.mjs counts them (Toolgate's backends and the
  // WAL writer, checkpointer and autovacuum), named by what `ps` says each one is.
  const postgres = postgresProcesses();
  const pids = [load.pid, load.workerPid, ...postgres.keys()].join(',');
  const perfData = join(dir, `perf-${MODE}.data`);
  const recorder = spawn('perf', ['record', '-k', 'mono', '-F', '999', '-g', '-p', pids, '-o', perfData], {
    stdio: 'ignore',
  });
  await new Promise((resolve) => setTimeout(resolve, D * 1000));
  recorder.kill('SIGINT');
  await new Promise((resolve) => recorder.once('exit', resolve));
  const calls = load.count() - before;
  await load.stop();
  await stack.stop();
  await stopAll();
  log(`${calls} calls answered while recording (${(calls / D).toFixed(0)}/s); naming JavaScript frames`);
  const injected = join(dir, `perf-${MODE}.jit.data`);
  run('perf', ['inject', '--jit', '-i', perfData, '-o', injected], { cwd: dir });
  const byPid = new Map();
  const script = run('perf', ['script', '-i', injected, '-F', 'comm,pid,ip,sym,dso'], { cwd: dir });
  if (process.env.PERF_KEEP) writeFileSync(process.env.PERF_KEEP, script);
  for (const sample of samples(script)) {
    if (!byPid.has(sample.pid)) byPid.set(sample.pid, []);
    byPid.get(sample.pid).push(sample.frames);
  }
  const roles = {
    'instant-floor': ['floor server (in place of the API)', 'worker'],
    'queued-floor': [
      'floor accepting process (in place of the API)',
      'floor delivering process (in place of the worker)',
    ],
  }[MODE] ?? ['API', 'worker'];
  const sections = [
    [load.pid, roles[0]],
    [load.workerPid, roles[1]],
  ]
    .filter(([pid]) => byPid.has(pid))
    // A process that was nearly idle under this load (the worker under instant calls) says nothing about it.
    .filter(([pid], _, all) => byPid.get(pid).length * 10 >= Math.max(...all.map(([p]) => byPid.get(p).length)))
    .map(([pid, name]) => summarize(`${MODE} calls: the ${name}`, byPid.get(pid)));
  const postgresSamples = [...postgres.keys()].flatMap((pid) => byPid.get(pid) ?? []);
  if (postgresSamples.length) sections.push(summarizePostgres(MODE, postgresSamples, postgres, byPid));
  return (
    `**${MODE} calls**, ${K} in flight: ${(calls / D).toFixed(0)} calls/s while recording ` +
    `(slowed by the profiler).\n\n` +
    sections.join('\n')
  );
}

let report;
try {
  const parts = [];
  for (const mode of MODES) parts.push(await profile(mode));
  report =
    `Written by \`MODE=${MODES.join(',')} K=${K} D=${D} node bench/perf-profile.mjs --results\` on ` +
    `${new Date().toISOString()}: \`perf record -F 999 -g\` of the API, the worker (all their threads) and every ` +
    `Postgres process for ${D} s of each load, JavaScript frames named by V8's jitdump. Real CPU samples: unlike the ` +
    `V8 profiles of the section above, a process waiting for a core is not counted.\n\n${parts.join('\n')}`;
  console.log(report);
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}

if (RESULTS && report) {
  const path = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const title = '## Where the CPU goes: real CPU samples (perf)';
  const start = previous.indexOf(title);
  const end = start === -1 ? -1 : previous.indexOf('\n## ', start + 1);
  const section = `${title}\n\n${report}`;
  const next =
    start === -1
      ? `${previous.trimEnd()}\n\n${section}`
      : `${previous.slice(0, start)}${section}${end === -1 ? '' : previous.slice(end + 1)}`;
  writeFileSync(path, `${next.trimEnd()}\n`);
  log(`wrote the section "${title.slice(3)}" of bench/RESULTS.md`);
}
