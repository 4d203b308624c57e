import { describe, expect, it } from 'vitest';
import { appIdOf } from './mcp-server-changes.js';

describe('appIdOf', () => {
  it("reads another process's announcement, and skips this process's own", () => {
    expect(appIdOf('["other","app_1"]', 'me')).toBe('app_1');
    expect(appIdOf('["me","app_1"]', 'me')).toBeNull();
  });

  it('takes nothing from what is not an announcement', () => {
    expect(appIdOf('app_1', 'me')).toBeNull();
    expect(appIdOf('["other"]', 'me')).toBeNull();
    expect(appIdOf('{"app":"app_1"}', 'me')).toBeNull();
  });
});
