import { describe, expect, it } from 'vitest';
import { handlerSaid, resultOf } from './handler-answer.js';

describe('resultOf', () => {
  const of = (body: string | Buffer, contentType?: string, contentEncoding?: string) =>
    resultOf({ body: Buffer.from(body), contentType, contentEncoding });

  it('hands JSON over as JSON and anything else as text', () => {
    expect(of('{"a":1}')).toEqual({ result: { a: 1 }, resultText: '{"a":1}' });
    expect(of('plain words')).toEqual({ result: 'plain words', resultText: 'plain words' });
    expect(of('"quoted"')).toEqual({ result: 'quoted', resultText: 'quoted' });
    expect(of('')).toEqual({ result: null, resultText: 'OK' });
  });

  it('keeps JSON nested deeper than 100 levels as its text', () => {
    const deep = '['.repeat(101) + ']'.repeat(101);
    expect(of(deep, 'application/json')).toEqual({ result: deep, resultText: deep });
    expect(of('['.repeat(100) + ']'.repeat(100)).result).toBeInstanceOf(Array);
  });

  it('names a binary answer instead of passing its bytes', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]);
    expect(of(png, 'image/png').resultText).toBe(
      '[binary answer of 5 bytes (image/png) not passed: only text reaches the model]',
    );
    expect(of(png).result).toBe('[binary answer of 5 bytes (no content type) not passed: only text reaches the model]');
    expect(of('{"a":1}', 'application/json', 'gzip').resultText).toBe(
      '[binary answer of 7 bytes (application/json, gzip) not passed: only text reaches the model]',
    );
  });

  it('reads text under a text content type, and UTF-8 text under any other', () => {
    expect(of(Buffer.from([0x63, 0xe9, 0x00]), 'text/plain; charset=latin1').result).toBe('c\uFFFD\u0000');
    expect(of('{"a":1}', 'application/problem+json').result).toEqual({ a: 1 });
    expect(of('{"a":1}', 'application/octet-stream').result).toEqual({ a: 1 });
    expect(of('<svg/>', 'image/svg+xml').result).toBe('<svg/>');
  });
});

describe('handlerSaid', () => {
  const said = (body: string | Buffer, contentType?: string, contentEncoding?: string) =>
    handlerSaid({ body: Buffer.from(body), contentType, contentEncoding });

  it("takes a JSON body's error string, else its message string", () => {
    expect(said('{"error":"customer 42 not found"}', 'application/json')).toBe('customer 42 not found');
    expect(said('{"message":"quota exceeded","code":7}')).toBe('quota exceeded');
    expect(said('{"error":"first","message":"second"}')).toBe('first');
    expect(said('{"error":{"code":1},"message":"the message"}')).toBe('the message');
  });

  it('else takes the start of the text, JSON without those strings included', () => {
    expect(said('customer 42 not found\n')).toBe('customer 42 not found');
    expect(said('{"error":{"code":1}}')).toBe('{"error":{"code":1}}');
    const long = 'é'.repeat(600);
    expect(said(long)).toBe(`${'é'.repeat(500)}…`);
    expect(said(`{"error":"${'x'.repeat(700)}"}`)).toBe(`${'x'.repeat(500)}…`);
    expect(Array.from(said('😀'.repeat(501)) as string)).toHaveLength(501);
    expect(said('{"error":"bad\\u0000byte \\ud800"}')).toBe('bad\uFFFDbyte \uFFFD');
  });

  it('says nothing for an empty or binary body', () => {
    expect(said('')).toBeNull();
    expect(said('   ')).toBeNull();
    expect(said(Buffer.from([0x89, 0x50, 0x00]), 'image/png')).toBeNull();
    expect(said('{"error":"x"}', 'application/json', 'gzip')).toBeNull();
  });
});
