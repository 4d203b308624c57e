import { describe, expect, it } from 'vitest';
import type { Env } from '../../../../config/src/index.js';
import { DomainError, ErrorCode } from '../../errors.js';
import { AgentWaits, WAIT_RETRY_AFTER_S } from './agent-waits.js';

describe('AgentWaits', () => {
  it('lets each agent of each project hold at most the configured waits, and frees a slot once per release', () => {
    const waits = new AgentWaits({ AGENT_MAX_CONCURRENT_WAITS: 2 } as Env);
    const agent = { projectId: 'p1', agentId: 'a' };
    const first = waits.acquire(agent);
    waits.acquire(agent);
    let refused: unknown;
    try {
      waits.acquire(agent);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: ErrorCode.RateLimited, retryAfterS: WAIT_RETRY_AFTER_S });
    expect(() => waits.acquire({ projectId: 'p2', agentId: 'a' })).not.toThrow();
    first();
    first();
    expect(() => waits.acquire(agent)).not.toThrow();
    expect(() => waits.acquire(agent)).toThrow(/waits on 2 calls at once/);
  });
});
