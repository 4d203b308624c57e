import { describe, expect, it } from 'vitest';
import { zodProblems } from '../../common/zod-validation.pipe.js';
import { CreateToolSchema, UpdateToolSchema } from './tools.schemas.js';

const base = {
  name: 'find_customer',
  title: { ru: 'Найти', en: 'Find' },
  description: { ru: 'Ищет', en: 'Finds' },
  handler_url: 'https://example.com/hook',
  execution_mode: 'instant',
};
const paths = (schema: typeof CreateToolSchema | typeof UpdateToolSchema, input: unknown) => {
  const result = schema.safeParse(input);
  return result.success ? [] : zodProblems(result.error.issues).map((p) => p.path);
};

describe('bilingual texts', () => {
  it('need both ru and en, each non-blank and within its length', () => {
    expect(paths(CreateToolSchema, base)).toEqual([]);
    expect(paths(CreateToolSchema, { ...base, title: { ru: 'Найти' } })).toEqual(['title.en']);
    expect(paths(CreateToolSchema, { ...base, title: { en: 'Find' } })).toEqual(['title.ru']);
    expect(paths(CreateToolSchema, { ...base, title: 'Find' })).toEqual(['title']);
    expect(paths(CreateToolSchema, { ...base, description: { ru: ' ', en: 'x' } })).toEqual(['description.ru']);
    expect(paths(CreateToolSchema, { ...base, description: { ru: 'д', en: 'x'.repeat(1001) } })).toEqual([
      'description.en',
    ]);
    expect(paths(CreateToolSchema, { ...base, response_description: { en: 'x' } })).toEqual([
      'response_description.ru',
    ]);
    expect(paths(CreateToolSchema, { ...base, response_description: null })).toEqual([]);
  });
});

describe('parameter lists', () => {
  const parameter = (name: string) => ({ name, type: 'number', description: 'd', required: true });
  it('take up to 32 typed parameters and default required to false', () => {
    const parsed = CreateToolSchema.parse({ ...base, parameters: [{ name: 'a', type: 'boolean', description: 'd' }] });
    expect(parsed.parameters).toEqual([{ name: 'a', type: 'boolean', description: 'd', required: false }]);
    expect(
      paths(CreateToolSchema, { ...base, parameters: Array.from({ length: 32 }, (_, i) => parameter(`p${i}`)) }),
    ).toEqual([]);
    expect(
      paths(CreateToolSchema, { ...base, parameters: Array.from({ length: 33 }, (_, i) => parameter(`p${i}`)) }),
    ).toEqual(['parameters']);
    expect(paths(CreateToolSchema, { ...base, parameters: [{ ...parameter('a'), type: 'array' }] })).toEqual([
      'parameters.0.type',
    ]);
    expect(paths(CreateToolSchema, { ...base, parameters: [{ ...parameter('a'), extra: true }] })).toEqual([
      'parameters.0.extra',
    ]);
  });
});

describe('updates', () => {
  it('accept any subset of fields and refuse name', () => {
    expect(paths(UpdateToolSchema, {})).toEqual([]);
    expect(paths(UpdateToolSchema, { attempt_timeout_s: 120, retry_window: null })).toEqual([]);
    expect(paths(UpdateToolSchema, { name: 'x' })).toEqual(['name']);
    expect(paths(UpdateToolSchema, { attempt_timeout_s: 11 })).toEqual(['attempt_timeout_s']);
  });
});
