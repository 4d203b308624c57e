#!/usr/bin/env node
// Summarizes V8 CPU profiles (from BENCH_PROFILE=1 runs): self time by package / Toolgate file,
// and the hottest functions. Usage: node bench/profile-summary.mjs [bench/profiles/*.cpuprofile]
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('./profiles', import.meta.url));
const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(dir, f));

function bucketOf({ url, functionName }) {
  if (!url) return functionName || '(anonymous native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return `toolgate: ${url.slice(dist + 6).replace(/\.js$/, '')}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
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
  console.log(
    `\n${basename(file)}: ${(busy / 1000).toFixed(0)} ms busy (self time, idle excluded)\nby package / file:\n${top(buckets, 20)}\nhottest functions:\n${top(functions, 15)}`,
  );
}
