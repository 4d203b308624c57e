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

  it('keeps every string storable, and does not offer a tool whose name had to change for that', () => {
    const [nul, surrogate, long, described] = mcpSnapshotEntries('a-b', [
      tool('bad\u0000name'),
      tool('half\ud800'),
      tool('n'.repeat(5000)),
      tool('ok', {
        description: 'says \u0000',
        inputSchema: { type: 'object', properties: { 'k\u0000': { type: 'string', description: '\udc00' } } },
      }),
    ]);
    expect(nul).toMatchObject({ name: 'bad\ufffdname', available: false });
    expect(nul.reason).toMatch(/^its name holds NUL \(U\+0000\), which cannot be stored/);
    expect(surrogate).toMatchObject({ name: 'half\ufffd', available: false });
    expect(surrogate.reason).toMatch(/^its name holds an unpaired UTF-16 surrogate/);
    expect(long.name).toBe(`${'n'.repeat(200)}…`);
    expect(long).toMatchObject({
      available: false,
      reason: expect.stringMatching(/^its name is 5000 characters long/),
    });
    expect(described).toMatchObject({
      available: true,
      description: 'says \ufffd',
      inputSchema: { type: 'object', properties: { 'k\ufffd': { type: 'string', description: '\ufffd' } } },
    });
  });

  it('cuts a long name without leaving half a surrogate pair', () => {
    const [entry] = mcpSnapshotEntries('a-b', [tool(`${'n'.repeat(199)}😀${'n'.repeat(10)}`)]);
    expect(entry.name).toBe(`${'n'.repeat(199)}\ufffd…`);
  });

  it('does not offer a name with "__", which agent hosts keep for the MCP servers users add', () => {
    const [double, leading] = mcpSnapshotEntries('a-b', [tool('files__read'), tool('_read')]);
    expect(double).toMatchObject({ available: false, reason: expect.stringMatching(/"a_b_files__read" holds "__"/) });
    expect(leading).toMatchObject({ available: false, reason: expect.stringMatching(/"a_b__read" holds "__"/) });
  });

  it('does not offer an MCP Apps tool hidden from the model', () => {
    const ui = (visibility: unknown) => ({ _meta: { ui: { resourceUri: 'ui://x', visibility } } });
    const entries = mcpSnapshotEntries('a-b', [
      tool('app_only', ui(['app'])),
      tool('nobody', ui([])),
      tool('both', ui(['model', 'app'])),
      tool('plain', { _meta: { ui: { resourceUri: 'ui://x' } } }),
    ]);
    expect(entries.map((e) => e.available)).toEqual([false, false, true, true]);
    expect(entries[0].reason).toMatch(/hidden from the model \(_meta\.ui\.visibility is \["app"\]\)/);
  });
});
