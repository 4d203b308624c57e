import { describe, expect, it } from 'vitest';
import {
  INFINITE_PROBLEM,
  MAX_JSON_DEPTH,
  NUL_PROBLEM,
  SURROGATE_PROBLEM,
  TOO_DEEP_PROBLEM,
  UNSAFE_INTEGER_PROBLEM,
  unstorableJsonProblems,
} from './storable-json.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('unstorableJsonProblems', () => {
  it('accepts ordinary JSON, emoji and other paired surrogates included', () => {
    expect(
      unstorableJsonProblems({
        a: 'Привет 👋',
        b: [1, 2.5, -3e300 / 1e300, true, null],
        c: { d: Number.MAX_SAFE_INTEGER },
      }),
    ).toEqual([]);
    expect(unstorableJsonProblems(nested(MAX_JSON_DEPTH))).toEqual([]);
  });

  it('names the path of a NUL in a value or a key', () => {
    expect(unstorableJsonProblems({ dialog_id: 'a\u0000b' })).toEqual([{ path: 'dialog_id', message: NUL_PROBLEM }]);
    expect(unstorableJsonProblems({ arguments: { 'x\u0000': 1 } })).toEqual([
      { path: 'arguments.x\\u0000', message: `(the field name) ${NUL_PROBLEM}` },
    ]);
    expect(unstorableJsonProblems(['ok', ['\u0000']])).toEqual([{ path: '1.0', message: NUL_PROBLEM }]);
  });

  it('refuses unpaired surrogates, high or low', () => {
    for (const text of ['\ud800', 'a\ud800b', '\udc00', 'x\udfff']) {
      expect(unstorableJsonProblems({ s: text })).toEqual([{ path: 's', message: SURROGATE_PROBLEM }]);
    }
  });

  it('refuses numbers that did not survive JSON.parse', () => {
    expect(unstorableJsonProblems(JSON.parse('{"n":1e400}'))).toEqual([{ path: 'n', message: INFINITE_PROBLEM }]);
    expect(unstorableJsonProblems(JSON.parse('{"n":-1e400}'))).toEqual([{ path: 'n', message: INFINITE_PROBLEM }]);
    expect(unstorableJsonProblems(JSON.parse('{"n":9007199254740993}'))).toEqual([
      { path: 'n', message: UNSAFE_INTEGER_PROBLEM },
    ]);
  });

  it('refuses nesting deeper than the limit once, at the level where it is too deep', () => {
    const problems = unstorableJsonProblems({ arguments: nested(MAX_JSON_DEPTH + 5000) }, []);
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toBe(TOO_DEEP_PROBLEM);
    expect(problems[0].path.split('.')).toHaveLength(MAX_JSON_DEPTH);
  });

  it('reports at most ten problems and prefixes a root path', () => {
    expect(unstorableJsonProblems(Array(1000).fill('\u0000'))).toHaveLength(10);
    expect(unstorableJsonProblems({ a: '\u0000' }, ['params'])).toEqual([{ path: 'params.a', message: NUL_PROBLEM }]);
  });
});
