import { describe, expect, it } from 'vitest';
import { mcpDialogId } from './mcp-dialog.js';

const agent = { projectId: 'p1', agentId: 'a1' };

describe('mcpDialogId', () => {
  it('is the dialog the client names', () => {
    expect(mcpDialogId('d-42', agent, 'session-1')).toBe('d-42');
  });

  it("is one per session of one agent without it, never the session's own id", () => {
    const dialog = mcpDialogId(undefined, agent, 'session-1');
    expect(dialog).toMatch(/^mcp-session-[A-Za-z0-9_-]{22}$/);
    expect(dialog).not.toContain('session-1');
    expect(mcpDialogId(undefined, agent, 'session-1')).toBe(dialog);
    expect(mcpDialogId(undefined, agent, 'session-2')).not.toBe(dialog);
    expect(mcpDialogId(undefined, { projectId: 'p2', agentId: 'a1' }, 'session-1')).not.toBe(dialog);
  });

  it('is one per call without a session', () => {
    expect(mcpDialogId(undefined, agent, undefined)).toMatch(/^mcp-call-/);
    expect(mcpDialogId(undefined, agent, undefined)).not.toBe(mcpDialogId(undefined, agent, undefined));
  });

  it('refuses a dialog id that is not a string of 1 to 200 characters', () => {
    for (const named of [42, '', 'd'.repeat(201), null]) {
      expect(() => mcpDialogId(named, agent, undefined)).toThrow(/invalid/);
    }
  });
});
