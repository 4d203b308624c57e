// Every relative link of the repository's Markdown leads to a file (and heading) inside the repository: a clone
// carries everything its documents point to. Links to public sites (http, https) are left alone.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'dist-b', '.data', 'coverage', 'generated', 'profiles']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : markdownFiles(join(dir, entry.name));
    return entry.name.endsWith('.md') ? [join(dir, entry.name)] : [];
  });
}

/** The text outside fenced code blocks, where a line starting with `#` is a heading. */
function outsideFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The text outside code blocks and inline code, where `[a](b)` is a link. */
function prose(markdown: string): string {
  return outsideFences(markdown).replace(/`[^`\n]*`/g, '');
}

/** Targets of inline links and images, `[text](target "title")`, and of reference definitions, `[id]: target`. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]);
  const definitions = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1]);
  return [...inline, ...definitions];
}

/** GitHub's anchors of a document's headings: lower case, punctuation dropped, spaces to "-", repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const [, heading] of outsideFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const seen = counts.get(base) ?? 0;
    counts.set(base, seen + 1);
    anchors.add(seen === 0 ? base : `${base}-${seen}`);
  }
  return anchors;
}

/** What is wrong with one link of `file`, or null when it leads somewhere inside the repository. */
function linkProblem(file: string, target: string): string | null {
  if (/^(https?:|mailto:)/i.test(target)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return 'a scheme other than http(s): leaves the repository';
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
  if (pathPart.startsWith('/')) return 'an absolute path: write it relative to the document';
  const inside = relative(root, path);
  if (inside === '..' || inside.startsWith(`..${sep}`)) return 'leads outside the repository';
  if (!existsSync(path)) return 'no such file or directory';
  if (anchor !== undefined && path.endsWith('.md') && statSync(path).isFile()) {
    if (!headingAnchors(readFileSync(path, 'utf8')).has(decodeURIComponent(anchor))) return `no heading #${anchor}`;
  }
  return null;
}

describe('links in the Markdown documents', () => {
  const files = markdownFiles(root);

  it('finds the documents a reader starts from', () => {
    const names = files.map((file) => relative(root, file).split(sep).join('/'));
    for (const expected of ['README.md', 'bench/README.md', 'libs/verifier/README.md', 'docs/architecture.md']) {
      expect(names).toContain(expected);
    }
  });

  it('lead to a file, and a heading, inside the repository', () => {
    const broken = files.flatMap((file) =>
      linkTargets(readFileSync(file, 'utf8')).flatMap((target) => {
        const problem = linkProblem(file, target);
        return problem ? [`${relative(root, file)}: (${target}) ${problem}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('never point beside the checkout (../shared)', () => {
    const outside = files.filter((file) => readFileSync(file, 'utf8').includes('../shared'));
    expect(outside.map((file) => relative(root, file))).toEqual([]);
  });

  it('are recognized by the checks above', () => {
    const sample =
      'A [file](docs/api.md), [an anchor](#x "t"), `[code](nowhere.md)`, ![img](a.png)\n\n[ref]: ../b.md\n';
    expect(linkTargets(sample)).toEqual(['docs/api.md', '#x', 'a.png', '../b.md']);
    expect(headingAnchors('# The `tool_call` webhook: wire\n## Errors\n## Errors\n')).toEqual(
      new Set(['the-tool_call-webhook-wire', 'errors', 'errors-1']),
    );
    expect(linkProblem(join(root, 'README.md'), '../shared/spec/API.md')).toBe('leads outside the repository');
    expect(linkProblem(join(root, 'README.md'), 'no-such-file.md')).toBe('no such file or directory');
  });
});
