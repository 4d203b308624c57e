import { describe, expect, it } from 'vitest';
import { agentToolsSettingsProblems, mcpSessionsOutlived } from './put-agent-tools-settings.use-case.js';

const paths = (input: Parameters<typeof agentToolsSettingsProblems>[0]) =>
  agentToolsSettingsProblems(input).map((p) => p.path);
const url = 'https://mcp.example.com/mcp';

describe('agentToolsSettingsProblems', () => {
  it('accepts constructor mode without mcp, and each action used as meant', () => {
    expect(paths({ enabled: true, mode: 'constructor' })).toEqual([]);
    expect(paths({ enabled: true, mode: 'mcp', mcp: { url, auth_header_value_action: 'preserve' } })).toEqual([]);
    expect(paths({ enabled: true, mode: 'mcp', mcp: { url, auth_header_value_action: 'clear' } })).toEqual([]);
    expect(
      paths({
        enabled: true,
        mode: 'mcp',
        mcp: { url, auth_header_value: 'Bearer x', auth_header_value_action: 'replace' },
      }),
    ).toEqual([]);
  });

  it('needs the MCP server in mcp mode', () => {
    expect(paths({ enabled: true, mode: 'mcp' })).toEqual(['mcp']);
    expect(paths({ enabled: true, mode: 'mcp', mcp: null })).toEqual(['mcp']);
  });

  it('needs a value to replace with, and refuses a value the action would ignore', () => {
    expect(paths({ enabled: false, mode: 'mcp', mcp: { url, auth_header_value_action: 'replace' } })).toEqual([
      'mcp.auth_header_value',
    ]);
    expect(
      paths({
        enabled: false,
        mode: 'mcp',
        mcp: { url, auth_header_value: 'x', auth_header_value_action: 'preserve' },
      }),
    ).toEqual(['mcp.auth_header_value']);
    expect(
      paths({ enabled: false, mode: 'mcp', mcp: { url, auth_header_value: 'x', auth_header_value_action: 'clear' } }),
    ).toEqual(['mcp.auth_header_value']);
  });
});

describe('mcpSessionsOutlived', () => {
  const on = {
    agentToolsEnabled: true,
    agentToolsMode: 'mcp',
    mcpUrl: url,
    mcpAuthHeaderName: 'Authorization',
    mcpAuthHeaderValueEnc: 'jwe-1',
  };

  it('keeps the sessions while the server and header stay', () => {
    expect(mcpSessionsOutlived(on, { ...on })).toBe(false);
  });

  it('ends them when the URL or the header changes, or the tools are off or not MCP', () => {
    expect(mcpSessionsOutlived(on, { ...on, mcpUrl: 'https://other.example.com/mcp' })).toBe(true);
    expect(mcpSessionsOutlived(on, { ...on, mcpAuthHeaderName: 'X-Key' })).toBe(true);
    expect(mcpSessionsOutlived(on, { ...on, mcpAuthHeaderValueEnc: null })).toBe(true);
    expect(mcpSessionsOutlived(on, { ...on, mcpAuthHeaderValueEnc: 'jwe-2' })).toBe(true);
    expect(mcpSessionsOutlived(on, { ...on, agentToolsEnabled: false })).toBe(true);
    expect(mcpSessionsOutlived(on, { ...on, agentToolsMode: 'constructor' })).toBe(true);
    expect(mcpSessionsOutlived(on, { ...on, mcpUrl: null })).toBe(true);
  });
});
