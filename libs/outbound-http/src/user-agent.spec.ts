import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOLGATE_VERSION } from './user-agent.js';

describe('TOOLGATE_VERSION', () => {
  it('is the version of package.json', () => {
    expect(TOOLGATE_VERSION).toBe(
      JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version,
    );
  });
});
