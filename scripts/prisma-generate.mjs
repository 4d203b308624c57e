// Generates the Prisma 7 client. Every Prisma 7 CLI command first fetches a native schema engine,
// which `generate` does not use: pointing it at /bin/true keeps generation offline.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const result = spawnSync('npx', ['prisma', 'generate'], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
if (result.status !== 0) process.exit(result.status ?? 1);

// The generated client loads its query compiler (WebAssembly) by importing a module whose one export is the
// compiler as a 2.3 MB base64 string. An imported module lives as long as the process, so the API and the worker
// kept that text twice (the module's source and the string), 4.5 MB of heap, for a module compiled once at
// startup. The client reads the same file instead: the text is garbage once the module is compiled.
const CLASS_FILE = new URL('../libs/persistence/src/generated/internal/class.ts', import.meta.url);
const IMPORTED =
  /const \{ wasm \} = await import\("([^"]+\.wasm-base64\.mjs)"\)\n(\s*)return await decodeBase64AsWasm\(wasm\)/;
const source = readFileSync(CLASS_FILE, 'utf8');
const found = IMPORTED.exec(source);
if (!found) {
  console.error(
    `prisma-generate: ${CLASS_FILE.pathname} no longer imports its query compiler as a base64 module; ` +
      'update the rewrite in scripts/prisma-generate.mjs to the new generated code',
  );
  process.exit(1);
}
const [imported, specifier, indent] = found;
const read = [
  `// Read, not imported (scripts/prisma-generate.mjs): the 2.3 MB text is not kept for the process's life.`,
  `const { readFile } = await import('node:fs/promises')`,
  `const { createRequire } = await import('node:module')`,
  `const text = await readFile(createRequire(import.meta.url).resolve(${JSON.stringify(specifier)}), 'latin1')`,
  `return await decodeBase64AsWasm(text.slice(text.indexOf('"') + 1, text.lastIndexOf('"')))`,
].join(`\n${indent}`);
writeFileSync(CLASS_FILE, source.replace(imported, read));
