import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpToolSnapshot } from '../../../persistence/src/index.js';
import { McpArgumentChecks, dialectOf } from './mcp-argument-checks.js';

let rows = 0;
function tool(inputSchema: unknown, overrides: Partial<McpToolSnapshot> = {}): McpToolSnapshot {
  rows += 1;
  return {
    id: `mcpt_${rows}`,
    appId: 'app_1',
    name: 'book',
    inputSchema,
    refreshedAt: new Date(1_000),
    ...overrides,
  } as McpToolSnapshot;
}

const booking = {
  type: 'object',
  properties: {
    date: { type: 'string', format: 'date' },
    seats: { type: 'integer', minimum: 1 },
    kind: { enum: ['table', 'bar'] },
    guest: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    },
  },
  required: ['date', 'seats'],
  additionalProperties: false,
};

afterEach(() => vi.restoreAllMocks());

describe('McpArgumentChecks', () => {
  it('lists every problem at its argument path', () => {
    const checks = new McpArgumentChecks();
    expect(checks.problems(tool(booking), { seats: 0, kind: 'sofa', extra: true, guest: { nick: 'x' } })).toEqual([
      { path: 'arguments.date', message: 'required' },
      { path: 'arguments.extra', message: 'unknown argument: the tool takes date, seats, kind, guest' },
      { path: 'arguments.seats', message: 'must be >= 1' },
      { path: 'arguments.kind', message: 'must be one of "table", "bar"' },
      { path: 'arguments.guest.name', message: 'required' },
      { path: 'arguments.guest.nick', message: 'unknown argument' },
    ]);
    expect(checks.problems(tool(booking), { date: 'tomorrow', seats: 2.5 })).toEqual([
      { path: 'arguments.date', message: 'must match format "date"' },
      { path: 'arguments.seats', message: 'must be integer' },
    ]);
    expect(checks.problems(tool(booking), { date: '2026-12-01', seats: 2, guest: { name: 'Ann' } })).toEqual([]);
  });

  it('compiles a schema once per snapshot row, and again after a refresh', () => {
    const checks = new McpArgumentChecks();
    const row = tool(booking);
    const engine = checks['engine']('2020-12'); // private: the test watches the compiler it uses
    const compile = vi.spyOn(engine, 'compile');
    for (let i = 0; i < 3; i++) checks.problems({ ...row }, { date: '2026-12-01', seats: i + 1 });
    expect(compile).toHaveBeenCalledTimes(1);
    checks.problems({ ...row, refreshedAt: new Date(2_000) }, {});
    expect(compile).toHaveBeenCalledTimes(2);
  });

  it('reuses an $id across apps without a clash', () => {
    const checks = new McpArgumentChecks();
    const schema = { $id: 'https://example.com/book', type: 'object', properties: { n: { type: 'number' } } };
    expect(checks.problems(tool(schema), { n: 'x' })).toEqual([{ path: 'arguments.n', message: 'must be number' }]);
    expect(checks.problems(tool({ ...schema, properties: { n: { type: 'string' } } }), { n: 'x' })).toEqual([]);
  });

  it('lets a call out unchecked, with a warning, when the schema cannot be compiled', () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const checks = new McpArgumentChecks();
    const broken = tool({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } });
    expect(checks.problems(broken, { a: 1 })).toEqual([]);
    expect(checks.problems(broken, { a: 2 })).toEqual([]);
    expect(
      checks.problems(
        tool({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', required: ['x'] }),
        {},
      ),
    ).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0][0]).toMatch(
      /MCP tool "book" of app app_1: its inputSchema cannot be checked \(.*missing.*\); calls go out unchecked/,
    );
  });

  it('checks draft-07 and 2019-09 schemas with their own dialect', () => {
    const checks = new McpArgumentChecks();
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
    };
    expect(checks.problems(tool(draft7), {})).toEqual([{ path: 'arguments.a', message: 'required' }]);
    const draft2019 = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      unevaluatedProperties: false,
    };
    expect(checks.problems(tool(draft2019), { z: 1 })).toEqual([
      { path: 'arguments', message: 'must NOT have unevaluated properties' },
    ]);
  });
});

describe('dialectOf', () => {
  it('reads $schema, none meaning 2020-12', () => {
    expect(dialectOf(undefined)).toBe('2020-12');
    expect(dialectOf('https://json-schema.org/draft/2020-12/schema')).toBe('2020-12');
    expect(dialectOf('https://json-schema.org/draft/2019-09/schema')).toBe('2019-09');
    expect(dialectOf('http://json-schema.org/draft-07/schema#')).toBe('draft-07');
    expect(dialectOf('http://json-schema.org/draft-06/schema')).toBe('draft-07');
    expect(dialectOf('http://json-schema.org/draft-04/schema#')).toBeNull();
    expect(dialectOf(7)).toBeNull();
  });
});
