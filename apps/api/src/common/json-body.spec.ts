import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseJsonBody } from './json-body.js';

const json = { 'content-type': 'application/json' };
const refusalOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return { status: (error as { statusCode?: number }).statusCode, type: (error as { type?: string }).type };
  }
  throw new Error('expected a refusal');
};

describe('parseJsonBody', () => {
  it('reads an object or an array, and an empty body as {}', () => {
    expect(parseJsonBody(Buffer.from(' {"a":1}'), json)).toEqual({ a: 1 });
    expect(parseJsonBody(Buffer.from('[1]'), json)).toEqual([1]);
    expect(parseJsonBody(Buffer.alloc(0), json)).toEqual({});
  });

  it('refuses malformed JSON and a bare value as a parse failure (400)', () => {
    expect(refusalOf(() => parseJsonBody(Buffer.from('{"a":'), json))).toEqual({
      status: 400,
      type: 'entity.parse.failed',
    });
    expect(refusalOf(() => parseJsonBody(Buffer.from('42'), json))).toEqual({
      status: 400,
      type: 'entity.parse.failed',
    });
  });

  it('refuses bytes that are not UTF-8 (400), and a charset that is no UTF encoding (415)', () => {
    expect(refusalOf(() => parseJsonBody(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), json))).toEqual({
      status: 400,
      type: 'entity.not_utf8',
    });
    const latin1 = { 'content-type': 'application/json; charset=latin1' };
    expect(refusalOf(() => parseJsonBody(Buffer.from('{}'), latin1))).toEqual({
      status: 415,
      type: 'charset.unsupported',
    });
    expect(
      parseJsonBody(Buffer.from('{"a":"é"}', 'utf16le'), { 'content-type': 'application/json; charset=UTF-16LE' }),
    ).toEqual({ a: 'é' });
  });

  it('inflates gzip up to 1 MiB; more is a 413, an unknown encoding a 415', () => {
    expect(parseJsonBody(gzipSync('{"a":1}'), { ...json, 'content-encoding': 'gzip' })).toEqual({ a: 1 });
    const bomb = gzipSync(`{"a":"${'x'.repeat(2 * 1024 * 1024)}"}`);
    expect(refusalOf(() => parseJsonBody(bomb, { ...json, 'content-encoding': 'gzip' }))).toEqual({
      status: 413,
      type: 'entity.too.large',
    });
    expect(refusalOf(() => parseJsonBody(Buffer.from('{}'), { ...json, 'content-encoding': 'compress' }))).toEqual({
      status: 415,
      type: 'encoding.unsupported',
    });
  });
});
