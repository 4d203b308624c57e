import { describe, expect, it } from 'vitest';
import { eventsOf } from './call-events.js';

describe('eventsOf', () => {
  it('reads a message of several events, and one of a single event', () => {
    expect(eventsOf('[["call_1",""],["call_2","{\\"n\\":1}"]]')).toEqual([
      ['call_1', ''],
      ['call_2', '{"n":1}'],
    ]);
    expect(eventsOf('["call_1",""]')).toEqual([['call_1', '']]);
  });

  it('takes nothing from what is not events', () => {
    expect(eventsOf('not json')).toEqual([]);
    expect(eventsOf('{"id":"call_1"}')).toEqual([]);
    expect(eventsOf('[1,2]')).toEqual([]);
    expect(eventsOf('[["call_1",""],[3],"x"]')).toEqual([['call_1', '']]);
  });
});
