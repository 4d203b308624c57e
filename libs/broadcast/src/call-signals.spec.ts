import { describe, expect, it } from 'vitest';
import { signalsOf } from './call-signals.js';

describe('signalsOf', () => {
  it('reads a message of several signals', () => {
    expect(signalsOf('[["call_1",""],["call_2","{\\"n\\":1}"]]')).toEqual([
      ['call_1', ''],
      ['call_2', '{"n":1}'],
    ]);
    expect(signalsOf('["call_1",""]')).toEqual([]);
  });

  it('takes nothing from what is not signals', () => {
    expect(signalsOf('not json')).toEqual([]);
    expect(signalsOf('{"id":"call_1"}')).toEqual([]);
    expect(signalsOf('[1,2]')).toEqual([]);
    expect(signalsOf('[["call_1",""],[3],"x"]')).toEqual([['call_1', '']]);
  });
});
