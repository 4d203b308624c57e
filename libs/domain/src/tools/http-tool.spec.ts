import { describe, expect, it } from 'vitest';
import { type HttpToolDefinition, toolDefinitionProblems } from './http-tool.js';

const tool = (overrides: Partial<HttpToolDefinition> = {}): HttpToolDefinition => ({
  name: 'find_customer',
  title: { ru: 'Найти', en: 'Find' },
  description: { ru: 'Ищет', en: 'Finds' },
  response_description: null,
  agent_description: null,
  handler_url: 'https://example.com/hook',
  parameters: [],
  configurable: false,
  allow_multiple: false,
  execution_mode: 'instant',
  attempt_timeout_s: 10,
  retry_window: null,
  ...overrides,
});

const paths = (t: HttpToolDefinition) => toolDefinitionProblems(t).map((p) => p.path);

describe('toolDefinitionProblems', () => {
  it('accepts a valid instant tool and valid queued tools', () => {
    expect(paths(tool())).toEqual([]);
    expect(paths(tool({ execution_mode: 'wait', retry_window: '5m' }))).toEqual([]);
    expect(paths(tool({ execution_mode: 'background', retry_window: '1d' }))).toEqual([]);
    expect(paths(tool({ configurable: true, allow_multiple: true }))).toEqual([]);
  });

  it('requires retry_window for wait and background and refuses it for instant', () => {
    expect(paths(tool({ execution_mode: 'wait' }))).toEqual(['retry_window']);
    expect(paths(tool({ execution_mode: 'background' }))).toEqual(['retry_window']);
    expect(paths(tool({ retry_window: '3h' }))).toEqual(['retry_window']);
  });

  it('allows multiple instances only for a configurable tool', () => {
    expect(paths(tool({ allow_multiple: true }))).toEqual(['allow_multiple']);
  });

  it('points at every repeated parameter name', () => {
    const parameter = (name: string) => ({ name, type: 'string' as const, description: 'd', required: false });
    expect(paths(tool({ parameters: [parameter('a'), parameter('b'), parameter('a'), parameter('a')] }))).toEqual([
      'parameters.2.name',
      'parameters.3.name',
    ]);
  });
});
