import { describe, expect, it } from 'vitest';
import { AGENT_FACING_NAME, agentFacingBaseName, resolveAgentFacingNames } from '../../../../libs/domain/src/index.js';
import { CALL_STATUS_TOOL, stillRunningResult } from './agent-mcp-call-status.js';

describe('the reserved call-status tool', () => {
  it('has a valid agent-facing name that no app tool can get: every one of those contains "_", it has none', () => {
    expect(CALL_STATUS_TOOL).toMatch(AGENT_FACING_NAME);
    expect(CALL_STATUS_TOOL).not.toContain('_');
    const names = resolveAgentFacingNames([
      agentFacingBaseName('toolgate-call', 'status'),
      agentFacingBaseName('toolgate-call', 'status'),
      agentFacingBaseName('x-y', 'call-status'),
    ]);
    expect(names).toEqual(['toolgate_call_status', 'toolgate_call_status_2', 'x_y_call-status']);
    for (const name of names) expect(name).not.toBe(CALL_STATUS_TOOL);
  });

  it('is named, with the call id, by the deadline answer of a wait call', () => {
    const text = stillRunningResult('call_1a', 'in_progress', 6, 'http://x/v1/agents/a/tool-calls/call_1a?wait=60')
      .content[0].text;
    expect(text).toBe(
      'Still running after 6 s: call call_1a (status in_progress) goes on retrying. ' +
        'To get its result, call toolgate-call-status with {"call_id": "call_1a"}; ' +
        'or poll GET http://x/v1/agents/a/tool-calls/call_1a?wait=60.',
    );
  });
});
