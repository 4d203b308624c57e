#!/usr/bin/env node
// Summarizes V8 CPU profiles (from BENCH_PROFILE=1 runs): self time by package / Toolgate file,
// and the hottest functions. Usage: node bench/profile-summary.mjs [bench/profiles/*.cpuprofile]
// `--results`: summarizes the newest profiles of the main stack's API and worker (rows 1, 2, 5, 6, 3, 7)
// into the section "Where the CPU goes" of bench/RESULTS.md, which later runs of bench/run.mjs keep.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeOwnerOf } from './lib/code-owner.mjs';

const dir = fileURLToPath(new URL('./profiles', import.meta.url));
const RESULTS = process.argv.includes('--results');
const args = process.argv.slice(2).filter((a) => a !== '--results');
const all = () =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f));
const newest = (prefix) =>
  all()
    .filter((f) => basename(f).startsWith(prefix))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
const files = args.length ? args : RESULTS ? [newest('main-api-'), newest('main-worker-')].filter(Boolean) : all();
const sections = [];

function bucketOf({ url, functionName }) {
  if (!url) return functionName || '(anonymous native)';
  return codeOwnerOf(url);
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let busy = 0;
  const buckets = new Map();
  const functions = new Map();
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (node.callFrame.functionName === '(idle)') continue;
    busy += us;
    const bucket = bucketOf(node.callFrame);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${bucket}:${node.callFrame.lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const top = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([name, us]) =>
          `  ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`,
      )
      .join('\n');
  const heading = `${basename(file)}: ${(busy / 1000).toFixed(0)} ms busy (self time, idle excluded)`;
  console.log(`\n${heading}\nby package / file:\n${top(buckets, 20)}\nhottest functions:\n${top(functions, 15)}`);
  sections.push(
    `### ${heading}\n\nBy package or Toolgate file:\n\n\`\`\`\n${top(buckets, 15)}\n\`\`\`\n\n` +
      `Hottest functions:\n\n\`\`\`\n${top(functions, 12)}\n\`\`\`\n`,
  );
}

if (RESULTS) {
  if (sections.length === 0)
    throw new Error('no main-api-/main-worker- profiles in bench/profiles: run BENCH_PROFILE=1');
  const path = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const title = '## Where the CPU goes';
  const start = previous.indexOf(`${title}\n`); // not bench/perf-profile.mjs's "## Where the CPU goes: real CPU…"
  const end = start === -1 ? -1 : previous.indexOf('\n## ', start + 1);
  const section =
    `${title}\n\nV8 CPU profiles (\`--cpu-prof\`) of the main stack's API and worker over a \`BENCH_PROFILE=1\` run ` +
    `(rows 1, 2, 5, 6, 3 and 7, startup included), written on ${new Date().toISOString()} by ` +
    `\`node bench/profile-summary.mjs --results\`. Self time, idle excluded; profiling slows the processes, so ` +
    `read the shares, not the milliseconds. The sampler counts wall time, so \`writev\`, \`writeBuffer\` and ` +
    `\`writeUtf8String\` include the time a process waited for a core after its write woke the peer on two busy ` +
    `cores: a socket write costs 4–8 µs of CPU here (\`strace -c\`, a loopback micro-benchmark), and the CPU table ` +
    `above, read from /proc, is the measure of CPU (and the next section, from \`perf\`, samples real CPU).\n\n` +
    `${sections.join('\n')}`;
  const next =
    start === -1
      ? `${previous.trimEnd()}\n\n${section}`
      : `${previous.slice(0, start)}${section}${end === -1 ? '' : previous.slice(end + 1)}`;
  writeFileSync(path, `${next.trimEnd()}\n`);
  console.log('wrote the section "Where the CPU goes" of bench/RESULTS.md');
}
