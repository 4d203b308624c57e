import { describe, expect, it } from 'vitest';
import { mcpSnapshotEntries } from './mcp-snapshot.js';

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  inputSchema: { type: 'object' },
  ...extra,
});

describe('mcpSnapshotEntries', () => {
  it('offers tools whose agent-facing names are valid', () => {
    const [echo, sum] = mcpSnapshotEntries('my-app', [tool('echo'), tool('get-sum')]);
    expect(echo).toMatchObject({ name: 'echo', available: true, reason: null });
    expect(sum).toMatchObject({ name: 'get-sum', available: true });
  });

  it('keeps but does not offer a tool whose name would be invalid, saying why', () => {
    const [dotted, long] = mcpSnapshotEntries('my-app', [tool('files.read'), tool('x'.repeat(60))]);
    expect(dotted).toMatchObject({
      available: false,
      reason: expect.stringMatching(/"my_app_files\.read" would not match/),
    });
    expect(long.available).toBe(false);
  });

  it('does not offer a task-only tool, nor any copy of a name listed twice', () => {
    const entries = mcpSnapshotEntries('a-b', [
      tool('slow', { execution: { taskSupport: 'required' } }),
      tool('opt', { execution: { taskSupport: 'optional' } }),
      tool('opt'),
    ]);
    expect(entries.map((e) => [e.name, e.available])).toEqual([
      ['slow', false],
      ['opt', false],
      ['opt', false],
    ]);
    expect(entries[0].reason).toMatch(/only run as a task/);
    expect(entries[1].reason).toMatch(/^listed twice: the server lists "opt" 2 times/);
    expect(entries[2].reason).toBe(entries[1].reason);
  });
});
