// What the README tells a user to set or run exists: its configuration table is the environment's schema (names and
// defaults), and every `npm run` in the documents is a script of package.json.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EnvSchema, parseEnv } from '../libs/config/src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The rows of the README's configuration table: the variables of the first cell, the default cell. */
function configurationRows(): { names: string[]; defaults: string }[] {
  const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  return [...section.matchAll(/^\| (`[A-Z_]+`(?: \/ `[A-Z_]+`)*) \|.*\| ([^|]*) \|$/gm)].map((match) => ({
    names: [...match[1].matchAll(/`([A-Z_]+)`/g)].map((name) => name[1]),
    defaults: match[2].trim(),
  }));
}

function documents(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? documents(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
  );
}

describe("the README's configuration table", () => {
  const rows = configurationRows();

  it('lists every variable of the environment schema, and no other', () => {
    const documented = rows.flatMap((row) => row.names).sort();
    expect(documented).toEqual(Object.keys(EnvSchema.in.shape).sort());
  });

  it("gives each variable's default as the schema has it", () => {
    const defaults = parseEnv({}) as Record<string, unknown>;
    const checked = rows.flatMap(({ names, defaults: cell }) => {
      // Only a cell that starts with literal values (one per variable) states a default: "`50`", "`9464` / `127.0.0.1`".
      const literals = /^`([^`$]+)`(?: \/ `([^`$]+)`)?(?=;|$| )/.exec(cell);
      if (!literals) return [];
      return names.map((name, i) => ({ name, documented: literals[i + 1], actual: String(defaults[name]) }));
    });
    expect(checked.length).toBeGreaterThanOrEqual(15);
    for (const { name, documented, actual } of checked)
      expect({ name, value: documented }).toEqual({ name, value: actual });
  });
});

describe('commands in the documents', () => {
  it('are scripts of package.json', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: object }).scripts,
    );
    const files = [join(root, 'README.md'), join(root, 'bench/README.md'), ...documents(join(root, 'docs'))];
    const named = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/npm (?:run (?:-s )?([a-z][\w:.-]*)|(start|test)\b)/g)].map(
        (match) => match[1] ?? match[2],
      ),
    );
    expect(named.length).toBeGreaterThan(10);
    expect([...new Set(named)].filter((name) => !scripts.includes(name))).toEqual([]);
  });
});
