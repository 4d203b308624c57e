import { describe, expect, it } from 'vitest';
import { jsonTextAtAnyDepth, nestsDeeperThan, storableJson, storableJsonText, storableText } from './storable.js';

describe('storableText', () => {
  it('replaces NUL and lone surrogates, keeps pairs', () => {
    expect(storableText('a\u0000b \ud800 \udc00 \ud834\udd1e')).toBe('a\uFFFDb \uFFFD \uFFFD \ud834\udd1e');
  });
});

describe('storableJsonText', () => {
  it('stores an ordinary value as JSON.stringify writes it', () => {
    expect(storableJsonText({ a: [1, 'x'] })).toBe('{"a":[1,"x"]}');
    expect(storableJsonText(null)).toBeNull();
  });

  it('cleans strings and keys at any depth', () => {
    expect(JSON.parse(storableJsonText({ 'k\u0000': [{ v: 'x\ud800' }] }) as string)).toEqual({
      'k\uFFFD': [{ v: 'x\uFFFD' }],
    });
  });

  it('names what is nested deeper than 100 levels, even past what the stack allows', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    const stored = storableJsonText(deep) as string;
    expect(stored.startsWith('['.repeat(100) + '"[nested deeper than 100 levels: not stored]"')).toBe(true);
    expect(nestsDeeperThan(deep, 100)).toBe(true);
    expect(nestsDeeperThan(storableJson([[1]]), 2)).toBe(false);
  });
});

describe('jsonTextAtAnyDepth', () => {
  it('writes what JSON.stringify writes', () => {
    const values = [
      null,
      'a"\u0000\ud800',
      1.5,
      true,
      [],
      {},
      [1, 'x', null, [2, { a: [] }]],
      { a: 1, 'k"': { b: [true, { c: 'd' }] }, gone: undefined },
      [undefined, 3],
    ];
    for (const value of values) expect(jsonTextAtAnyDepth(value)).toBe(JSON.stringify(value));
  });

  it('writes a value nested deeper than the stack allows', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i += 1) deep = { a: deep };
    const text = jsonTextAtAnyDepth(deep);
    expect(text).toBe(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`);
  });
});
