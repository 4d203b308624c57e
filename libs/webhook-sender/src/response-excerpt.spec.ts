import { describe, expect, it } from 'vitest';
import { excerptOf } from './response-excerpt.js';

describe('excerptOf', () => {
  it('keeps UTF-8 text as it is, tabs and line breaks included', () => {
    expect(excerptOf(Buffer.from('{"a":"é ✓ 𝄞"}\r\n\tnext'))).toBe('{"a":"é ✓ 𝄞"}\r\n\tnext');
  });

  it('writes NUL, control bytes and bytes that are not UTF-8 as \\xNN', () => {
    expect(excerptOf(Buffer.from([0x61, 0x00, 0x1b, 0x7f, 0xff, 0xc3, 0x28, 0x62]))).toBe(
      'a\\x00\\x1b\\x7f\\xff\\xc3(b',
    );
    // overlong, surrogate, past U+10FFFF, truncated at the end
    expect(excerptOf(Buffer.from([0xe0, 0x80, 0x80, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80, 0xe2, 0x9c]))).toBe(
      '\\xe0\\x80\\x80\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\\xe2\\x9c',
    );
  });

  it('keeps the first 4 KiB and leaves out a character cut by the end', () => {
    expect(excerptOf(Buffer.from('x'.repeat(5000)))).toHaveLength(4096);
    expect(excerptOf(Buffer.from('ab✓'), 4)).toBe('ab');
    expect(excerptOf(Buffer.alloc(5000, 0))).toBe('\\x00'.repeat(4096));
  });
});
