import { describe, expect, it } from 'vitest';
import { newId, uuidv7 } from './ids.js';

describe('uuidv7', () => {
  it('has version 7, the RFC variant and the time in its first 48 bits', () => {
    const id = uuidv7(0x0197_0000_0001);
    expect(id).toMatch(/^01970000-0001-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sorts in creation order, also within one millisecond', () => {
    const ids = Array.from({ length: 2000 }, () => uuidv7(1_800_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('makes prefixed opaque ids: a UUIDv7 without its dashes, in creation order', () => {
    const ids = Array.from({ length: 2000 }, () => newId('call'));
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
