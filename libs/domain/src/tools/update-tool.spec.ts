import { describe, expect, it } from 'vitest';
import type { HttpToolDefinition } from './http-tool.js';
import { mergeToolUpdate } from './update-tool.use-case.js';

const waitTool: HttpToolDefinition = {
  name: 't',
  title: { ru: 'т', en: 't' },
  description: { ru: 'д', en: 'd' },
  response_description: { ru: 'о', en: 'r' },
  agent_description: 'for the model',
  handler_url: 'https://example.com',
  parameters: [],
  configurable: false,
  allow_multiple: false,
  execution_mode: 'wait',
  attempt_timeout_s: 30,
  retry_window: '3h',
};

describe('mergeToolUpdate', () => {
  it('keeps what the change leaves out and clears what it sets to null', () => {
    const merged = mergeToolUpdate(waitTool, {
      attempt_timeout_s: 60,
      agent_description: null,
      response_description: undefined,
    });
    expect(merged).toEqual({ ...waitTool, attempt_timeout_s: 60, agent_description: null });
  });

  it('drops the stored retry window when switching to instant', () => {
    expect(mergeToolUpdate(waitTool, { execution_mode: 'instant' }).retry_window).toBeNull();
  });

  it('keeps a retry window the same body sets, so that the rule can refuse it', () => {
    expect(mergeToolUpdate(waitTool, { execution_mode: 'instant', retry_window: '5m' }).retry_window).toBe('5m');
  });
});
