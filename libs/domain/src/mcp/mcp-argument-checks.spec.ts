import { Logger } from '@nestjs/common';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { McpToolSnapshot } from '../../../persistence/src/index.js';
import { McpArgumentChecks, dialectOf, holdsRegexes } from './mcp-argument-checks.js';
import { OffLoopSchemaChecks } from './off-loop-schema-checks.js';

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

const offLoop = new OffLoopSchemaChecks();
afterEach(() => vi.restoreAllMocks());
afterAll(() => offLoop.onApplicationShutdown());

describe('McpArgumentChecks', () => {
  it('lists every problem at its argument path', async () => {
    const checks = new McpArgumentChecks(offLoop);
    expect(await checks.problems(tool(booking), { seats: 0, kind: 'sofa', extra: true, guest: { nick: 'x' } })).toEqual(
      [
        { path: 'arguments.date', message: 'required' },
        { path: 'arguments.extra', message: 'unknown argument: the tool takes date, seats, kind, guest' },
        { path: 'arguments.seats', message: 'must be >= 1' },
        { path: 'arguments.kind', message: 'must be one of "table", "bar"' },
        { path: 'arguments.guest.name', message: 'required' },
        { path: 'arguments.guest.nick', message: 'unknown argument' },
      ],
    );
    expect(await checks.problems(tool(booking), { date: 'tomorrow', seats: 2.5 })).toEqual([
      { path: 'arguments.date', message: 'must match format "date"' },
      { path: 'arguments.seats', message: 'must be integer' },
    ]);
    expect(await checks.problems(tool(booking), { date: '2026-12-01', seats: 2, guest: { name: 'Ann' } })).toEqual([]);
  });

  it('compiles a schema once per snapshot row, and again after a refresh', async () => {
    const checks = new McpArgumentChecks(offLoop);
    const row = tool(booking);
    const engine = checks['engine']('2020-12'); // private: the test watches the compiler it uses
    const compile = vi.spyOn(engine, 'compile');
    for (let i = 0; i < 3; i++) await checks.problems({ ...row }, { date: '2026-12-01', seats: i + 1 });
    expect(compile).toHaveBeenCalledTimes(1);
    await checks.problems({ ...row, refreshedAt: new Date(2_000) }, {});
    expect(compile).toHaveBeenCalledTimes(2);
  });

  it('reuses an $id across apps without a clash', async () => {
    const checks = new McpArgumentChecks(offLoop);
    const schema = { $id: 'https://example.com/book', type: 'object', properties: { n: { type: 'number' } } };
    expect(await checks.problems(tool(schema), { n: 'x' })).toEqual([
      { path: 'arguments.n', message: 'must be number' },
    ]);
    expect(await checks.problems(tool({ ...schema, properties: { n: { type: 'string' } } }), { n: 'x' })).toEqual([]);
  });

  it('lets a call out unchecked, with a warning, when the schema cannot be compiled', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const checks = new McpArgumentChecks(offLoop);
    const broken = tool({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } });
    expect(await checks.problems(broken, { a: 1 })).toEqual([]);
    expect(await checks.problems(broken, { a: 2 })).toEqual([]);
    expect(
      await checks.problems(
        tool({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', required: ['x'] }),
        {},
      ),
    ).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0][0]).toMatch(
      /MCP tool "book" of app app_1: its inputSchema cannot be checked \(.*missing.*\); calls go out unchecked/,
    );
  });

  it('checks draft-07 and 2019-09 schemas with their own dialect', async () => {
    const checks = new McpArgumentChecks(offLoop);
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
    };
    expect(await checks.problems(tool(draft7), {})).toEqual([{ path: 'arguments.a', message: 'required' }]);
    const draft2019 = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      unevaluatedProperties: false,
    };
    expect(await checks.problems(tool(draft2019), { z: 1 })).toEqual([
      { path: 'arguments', message: 'must NOT have unevaluated properties' },
    ]);
  });
});

describe('McpArgumentChecks of a schema holding regexes', () => {
  const word = (pattern: string) => ({ type: 'object', properties: { word: { type: 'string', pattern } } });
  const hostile = { word: 'a'.repeat(29) + '!' };

  it('checks them in a thread, refusing a check past its time bound and going on with a new thread', async () => {
    const checks = new McpArgumentChecks(offLoop);
    const code = tool(word('^[A-Z]{3}$'));
    expect(await checks.problems(code, { word: 'abc' })).toEqual([
      { path: 'arguments.word', message: 'must match pattern "^[A-Z]{3}$"' },
    ]);
    const started = performance.now();
    expect(await checks.problems(tool(word('^(a+)+$')), hostile)).toEqual([
      { path: 'arguments', message: expect.stringMatching(/^not checked within 200 ms: a pattern .* too slow/) },
    ]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await checks.problems(code, { word: 'ABC' })).toEqual([]);
  });

  it("queues each app's checks on its own, the apps taking turns", async () => {
    const checks = new McpArgumentChecks(offLoop);
    const slow = tool(word('^(a+)+$'), { appId: 'app_hostile' });
    const flood = Array.from({ length: 20 }, () => checks.problems(slow, hostile));
    const started = performance.now();
    expect(await checks.problems(tool(word('^b+$'), { appId: 'app_other' }), { word: 'bbb' })).toEqual([]);
    // Behind at most the hostile check already running and a thread's start or two, not behind the 16 waiting after
    // it (3 more were refused), which take 200 ms and a new thread each.
    expect(performance.now() - started).toBeLessThan(3_000);
    const refusals = (await Promise.all(flood)).map((problems) => problems[0]?.message ?? '');
    expect(refusals.filter((m) => m.includes('too many calls')).length).toBe(3);
    expect(refusals.filter((m) => m.startsWith('not checked within')).length).toBe(17);
  }, 20_000);

  it('treats a schema that does not compile in the thread as one that does not compile here', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const checks = new McpArgumentChecks(offLoop);
    const broken = tool({ type: 'object', properties: { a: { pattern: '(' } } });
    expect(await checks.problems(broken, { a: 'x' })).toEqual([]);
    expect(await checks.problems(broken, { a: 'y' })).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(
      /its inputSchema cannot be checked \(Invalid regular expression.*\); calls go out unchecked/,
    );
  });
});

describe('holdsRegexes', () => {
  it('finds pattern, patternProperties and the regex format at any depth, and nothing else', () => {
    expect(holdsRegexes({ type: 'object', properties: { a: { type: 'string' } } })).toBe(false);
    expect(holdsRegexes({ properties: { a: { items: [{ anyOf: [{ pattern: 'x' }] }] } } })).toBe(true);
    expect(holdsRegexes({ patternProperties: {} })).toBe(true);
    expect(holdsRegexes({ properties: { re: { type: 'string', format: 'regex' } } })).toBe(true);
    expect(holdsRegexes({ properties: { at: { type: 'string', format: 'date-time' } } })).toBe(false);
    expect(holdsRegexes({ properties: { pattern: { type: 'string' } } })).toBe(false);
  });
});

describe('dialectOf', () => {
  it('reads $schema, none meaning 2020-12', async () => {
    expect(dialectOf(undefined)).toBe('2020-12');
    expect(dialectOf('https://json-schema.org/draft/2020-12/schema')).toBe('2020-12');
    expect(dialectOf('https://json-schema.org/draft/2019-09/schema')).toBe('2019-09');
    expect(dialectOf('http://json-schema.org/draft-07/schema#')).toBe('draft-07');
    expect(dialectOf('http://json-schema.org/draft-06/schema')).toBe('draft-07');
    expect(dialectOf('http://json-schema.org/draft-04/schema#')).toBeNull();
    expect(dialectOf(7)).toBeNull();
  });
});
