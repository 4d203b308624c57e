// Runs one of the built scripts (`node scripts/run-built.mjs token …`), building first only when a source is newer
// than the build, and quietly: `npm run token` prints the token and nothing else.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [name, ...args] = process.argv.slice(2);
if (!name || !existsSync(join('scripts', `${name}.ts`))) {
  process.stderr.write('usage: node scripts/run-built.mjs <a script of scripts/, without .ts> [its arguments]\n');
  process.exit(2);
}
const built = join('dist/scripts', `${name}.js`);

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'generated', 'dist'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function quietly(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout}${result.stderr}`);
    process.exit(result.status ?? 1);
  }
}

const buildTime = existsSync(built) ? statSync(built).mtimeMs : 0;
const sourceTime = Math.max(...['apps', 'libs', 'scripts'].map(newestSource), statSync('prisma/schema.prisma').mtimeMs);
if (sourceTime > buildTime) {
  process.stderr.write('(building Toolgate once, a few seconds…)\n');
  quietly(process.execPath, ['scripts/prisma-generate.mjs']);
  quietly(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
}
process.argv = [process.argv[0], built, ...args];
await import(`../${built}`);
