import { describe, expect, it } from 'vitest';
import { agentKey } from './agent-ref.js';

describe('agentKey', () => {
  it('tells apart ids that a separator would join alike, and string from number request ids', () => {
    expect(agentKey({ projectId: 't:x', agentId: 'y' })).not.toBe(agentKey({ projectId: 't', agentId: 'x:y' }));
    expect(agentKey({ projectId: 'p\u0000a', agentId: 'b' })).not.toBe(
      agentKey({ projectId: 'p', agentId: 'a\u0000b' }),
    );
    expect(agentKey({ projectId: 'p', agentId: 'a' }, 1)).not.toBe(agentKey({ projectId: 'p', agentId: 'a' }, '1'));
    expect(agentKey({ projectId: 'p', agentId: 'a' }, 's', 1)).toBe(agentKey({ projectId: 'p', agentId: 'a' }, 's', 1));
  });
});
