import type { FieldProblem } from './errors.js';

/** How deep a request's JSON may nest: deeper than any real input, shallow enough for every recursive walk. */
export const MAX_JSON_DEPTH = 64;

/** At most this many problems are reported: a body of a million NULs gets a short answer. */
const MAX_PROBLEMS = 10;

export const NUL_PROBLEM = 'must not contain NUL (U+0000): remove it, or send binary data encoded (e.g. base64)';
export const SURROGATE_PROBLEM =
  'holds an unpaired UTF-16 surrogate (e.g. \\ud800), which is no character: send valid Unicode text';
export const INFINITE_PROBLEM =
  'is too large to be a number (it would become Infinity): send a smaller number, or a string';
export const UNSAFE_INTEGER_PROBLEM =
  `is a whole number beyond ±${Number.MAX_SAFE_INTEGER} (2^53 − 1), ` +
  'which JSON numbers do not carry exactly: send it as a string';
export const TOO_DEEP_PROBLEM = `is nested deeper than ${MAX_JSON_DEPTH} levels: send flatter data`;

// Without the u flag a regex sees UTF-16 code units: a high surrogate not followed by a low one, or a low one alone.
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');

/** Why one string cannot be stored (Postgres text and jsonb refuse NUL and unpaired surrogates), or null. */
export function unstorableTextProblem(value: string): string | null {
  if (value.includes('\u0000')) return NUL_PROBLEM;
  if (UNPAIRED_SURROGATE.test(value)) return SURROGATE_PROBLEM;
  return null;
}

/** A key as it appears in a problem's dotted path, with the characters that make it unstorable escaped. */
function pathKey(key: string): string {
  // eslint-disable-next-line no-control-regex -- NUL is exactly what Postgres refuses
  return key.replace(/\u0000/g, '\\u0000').replace(UNPAIRED_SURROGATES, '\ufffd');
}

/** Where a value sits: its key and its parent's place, so that a path is built only for a problem. */
interface Place {
  parent: Place | null;
  key: string;
}

function pathOf(place: Place | null, rootPath: string[]): string {
  const keys: string[] = [];
  for (let at = place; at; at = at.parent) keys.push(at.key);
  return [...rootPath, ...keys.reverse()].join('.');
}

/** Why one scalar cannot be taken as it is, or null. */
function scalarProblem(value: unknown): string | null {
  if (typeof value === 'string') return unstorableTextProblem(value);
  if (typeof value !== 'number') return null;
  if (!Number.isFinite(value)) return INFINITE_PROBLEM;
  return Number.isInteger(value) && !Number.isSafeInteger(value) ? UNSAFE_INTEGER_PROBLEM : null;
}

/**
 * What in a parsed JSON value (a body, a query, JSON-RPC params) cannot be stored or passed on
 * unchanged: NUL and unpaired surrogates in strings and keys, numbers that JSON.parse turned into
 * Infinity or that lost digits, nesting deeper than MAX_JSON_DEPTH. Walks without recursion, and
 * builds a path only for a problem (a 1 MiB array is walked in a few ms).
 */
export function unstorableJsonProblems(root: unknown, rootPath: string[] = []): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const rootProblem = scalarProblem(root);
  if (rootProblem) return [{ path: pathOf(null, rootPath), message: rootProblem }];
  const stack: { value: object; place: Place | null; depth: number }[] = [];
  if (root !== null && typeof root === 'object') stack.push({ value: root, place: null, depth: 0 });
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const { value, place, depth } = stack.pop()!;
    if (depth >= MAX_JSON_DEPTH) {
      problems.push({ path: pathOf(place, rootPath), message: TOO_DEEP_PROBLEM });
      continue;
    }
    const isArray = Array.isArray(value);
    const keys = isArray ? null : Object.keys(value);
    const length = isArray ? value.length : keys!.length;
    for (let i = 0; i < length && problems.length < MAX_PROBLEMS; i += 1) {
      const key = isArray ? String(i) : keys![i];
      const item: unknown = isArray ? value[i] : (value as Record<string, unknown>)[key];
      const keyProblem = isArray ? null : unstorableTextProblem(key);
      if (keyProblem) {
        const path = pathOf({ parent: place, key: pathKey(key) }, rootPath);
        problems.push({ path, message: `(the field name) ${keyProblem}` });
        continue;
      }
      if (item !== null && typeof item === 'object') {
        stack.push({ value: item, place: { parent: place, key }, depth: depth + 1 });
        continue;
      }
      const problem = scalarProblem(item);
      if (problem) problems.push({ path: pathOf({ parent: place, key }, rootPath), message: problem });
    }
  }
  return problems;
}
