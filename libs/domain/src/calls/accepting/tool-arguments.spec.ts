import { describe, expect, it } from 'vitest';
import { DomainError } from '../../errors.js';
import type { ToolParameter } from '../../tools/http-tool.js';
import {
  argumentProblems,
  configuredParameterProblems,
  effectiveParameters,
  mcpArgumentsObject,
  normalizeArguments,
  parametersJsonSchema,
} from './tool-arguments.js';

const tool: ToolParameter[] = [
  { name: 'city', type: 'string', description: 'City', required: true },
  { name: 'days', type: 'number', description: 'Days ahead', required: false },
  { name: 'metric', type: 'boolean', description: 'Metric units', required: false },
];

const paths = (args: unknown, params = effectiveParameters(tool, [])) =>
  argumentProblems(params, args).map((p) => p.path);

describe('argumentProblems', () => {
  it('accepts valid arguments', () => {
    expect(paths({ city: 'Riga', days: 3, metric: true })).toEqual([]);
    expect(paths({ city: 'Riga', days: null })).toEqual([]);
  });

  it('treats {}, null and missing alike', () => {
    const none = effectiveParameters(
      tool.map((p) => ({ ...p, required: false })),
      [],
    );
    for (const args of [{}, null, undefined]) expect(paths(args, none)).toEqual([]);
    for (const args of [{}, null, undefined]) expect(paths(args)).toEqual(['arguments.city']);
  });

  it('lists every problem: type, required, unknown', () => {
    expect(paths({ days: '3', metric: 'yes', extra: 1 })).toEqual([
      'arguments.extra',
      'arguments.city',
      'arguments.days',
      'arguments.metric',
    ]);
    expect(paths({ city: 'x', days: Number.NaN })).toEqual(['arguments.days']);
    expect(paths([1])).toEqual(['arguments']);
    expect(paths('city')).toEqual(['arguments']);
  });

  it('enforces allowed values and the instance required flag', () => {
    const params = effectiveParameters(tool, [
      { name: 'city', type: 'string', description: 'Our cities', required: true, allowed_values: ['Riga', 'Tallinn'] },
      { name: 'days', type: 'number', description: 'Days', required: true, allowed_values: [1, 7] },
    ]);
    expect(paths({ city: 'Riga', days: 7 }, params)).toEqual([]);
    expect(paths({ city: 'Oslo', days: 2 }, params)).toEqual(['arguments.city', 'arguments.days']);
    expect(paths({ city: 'Riga' }, params)).toEqual(['arguments.days']);
  });

  it('reads own properties only: names every object inherits are parameters like any other', () => {
    const inherited = ['constructor', 'toString', 'valueOf', '__proto__'].map((name) => ({
      name,
      type: 'string' as const,
      description: name,
      required: false,
    }));
    const params = effectiveParameters(inherited, []);
    expect(paths({}, params)).toEqual([]);
    expect(paths(JSON.parse('{"__proto__": "p", "constructor": "c"}'), params)).toEqual([]);
    expect(paths({ toString: 1 }, params)).toEqual(['arguments.toString']);
  });
});

describe('configuredParameterProblems', () => {
  it('needs names of the tool, the same type and typed allowed values', () => {
    expect(
      configuredParameterProblems(tool, [
        { name: 'days', type: 'number', description: 'd', required: true, allowed_values: [1, 2] },
      ]),
    ).toEqual([]);
    const problems = configuredParameterProblems(tool, [
      { name: 'nope', type: 'string', description: 'd', required: false, allowed_values: [] },
      { name: 'days', type: 'string', description: 'd', required: false, allowed_values: [] },
      { name: 'city', type: 'string', description: 'd', required: false, allowed_values: ['a', 2] },
      { name: 'city', type: 'string', description: 'd', required: false, allowed_values: [] },
    ]);
    expect(problems.map((p) => p.path)).toEqual([
      'configured_parameters.0.name',
      'configured_parameters.1.type',
      'configured_parameters.2.allowed_values.1',
      'configured_parameters.3.name',
    ]);
  });
});

describe('parametersJsonSchema', () => {
  it('is a closed object schema with enums from allowed values', () => {
    const params = effectiveParameters(tool, [
      { name: 'city', type: 'string', description: 'Our cities', required: true, allowed_values: ['Riga'] },
    ]);
    expect(parametersJsonSchema(params)).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'Our cities', enum: ['Riga'] },
        days: { type: 'number', description: 'Days ahead' },
        metric: { type: 'boolean', description: 'Metric units' },
      },
      required: ['city'],
      additionalProperties: false,
    });
  });
});

describe('normalizeArguments', () => {
  it('drops nulls and turns nothing into {}', () => {
    expect(normalizeArguments({ a: 1, b: null })).toEqual({ a: 1 });
    expect(normalizeArguments(null)).toEqual({});
  });
});

describe('mcpArgumentsObject', () => {
  it('takes no arguments as {} and passes an object through', () => {
    for (const none of [null, undefined, '']) expect(mcpArgumentsObject(none)).toEqual({});
    expect(mcpArgumentsObject({ q: 1 })).toEqual({ q: 1 });
  });

  it('refuses anything else with a field problem on arguments', () => {
    for (const bad of [[1], 'text', 3, true]) {
      const thrown = catching(() => mcpArgumentsObject(bad));
      expect(thrown).toBeInstanceOf(DomainError);
      expect(thrown).toMatchObject({ errors: [{ path: 'arguments', message: expect.stringContaining('an object') }] });
    }
  });
});

function catching(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
