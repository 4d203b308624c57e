/** JSON nested deeper than this is not stored as JSON: Postgres and JSON.stringify both recurse. */
export const MAX_STORED_JSON_DEPTH = 100;

/** What Postgres text and jsonb refuse: NUL, and a UTF-16 surrogate without its other half. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what Postgres refuses
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** The same, as JSON.stringify writes it. */
const UNSTORABLE_ESCAPED = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

/** Text Postgres can hold: NUL and lone surrogates become U+FFFD. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/** A JSON value jsonb can hold: every string and key storable, anything nested too deep named instead. */
export function storableJson(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return storableText(value);
  if (typeof value === 'bigint') return String(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_STORED_JSON_DEPTH) return `[nested deeper than ${MAX_STORED_JSON_DEPTH} levels: not stored]`;
  if (Array.isArray(value)) return value.map((item) => storableJson(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [storableText(key), storableJson(item, depth + 1)]),
  );
}

/** The jsonb text of a value, made storable only where it needs it (the common answer is stored as is). */
export function storableJsonText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // nested too deep for the stack: the walk below cuts it
  }
  if (text === undefined || UNSTORABLE_ESCAPED.test(text) || nestsDeeperThan(value, MAX_STORED_JSON_DEPTH)) {
    text = JSON.stringify(storableJson(value));
  }
  return text;
}

/** Whether a JSON value nests deeper than `max` levels; iterative, as the value may be deeper than the stack allows. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

const UNWRITTEN = new Set(['undefined', 'function', 'symbol']);

/**
 * The JSON text of a parsed JSON value (plain objects, arrays, strings, numbers, booleans, null), as JSON.stringify
 * writes it, at any depth: written without recursion, for a value nested deeper than JSON.stringify's stack allows.
 */
export function jsonTextAtAnyDepth(value: unknown): string {
  const out: string[] = [];
  // what is still to write, last first: text as it is, or a value
  const pending: (string | { value: unknown })[] = [{ value }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next === 'string') {
      out.push(next);
      continue;
    }
    const item = next.value;
    if (item === null || typeof item !== 'object') {
      out.push(JSON.stringify(item) ?? 'null');
      continue;
    }
    if (Array.isArray(item)) {
      out.push('[');
      pending.push(']');
      for (let i = item.length - 1; i >= 0; i -= 1) {
        pending.push({ value: item[i] });
        if (i > 0) pending.push(',');
      }
      continue;
    }
    // as JSON.stringify does: a field that JSON cannot hold is left out (an array's item becomes null, above)
    const entries = Object.entries(item).filter(([, field]) => !UNWRITTEN.has(typeof field));
    out.push('{');
    pending.push('}');
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      pending.push({ value: entries[i][1] }, `${JSON.stringify(entries[i][0])}:`);
      if (i > 0) pending.push(',');
    }
  }
  return out.join('');
}
