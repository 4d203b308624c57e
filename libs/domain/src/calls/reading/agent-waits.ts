import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../../config/src/index.js';
import { type AgentRef, agentKey } from '../../agents/agent-ref.js';
import { DomainError } from '../../errors.js';

/** What a refused wait is told to wait before trying again. */
export const WAIT_RETRY_AFTER_S = 5;

/**
 * The waits (long-polls, MCP `wait` calls) each agent of a project has open on this API replica:
 * at most AGENT_MAX_CONCURRENT_WAITS, so one agent cannot hold every connection of the replica.
 * Per replica, kept in memory: it needs no Redis on the request path, and N replicas allow N times it.
 */
@Injectable()
export class AgentWaits {
  private readonly open = new Map<string, number>();
  private readonly max: number;

  constructor(@Inject(ENV) env: Env) {
    this.max = env.AGENT_MAX_CONCURRENT_WAITS;
  }

  /** Takes one of the agent's wait slots, or refuses (429); the returned function gives it back (once). */
  acquire(agent: AgentRef): () => void {
    const key = agentKey(agent);
    const taken = this.open.get(key) ?? 0;
    if (taken >= this.max) {
      throw DomainError.rateLimited(
        `This agent already waits on ${taken} calls at once, the most allowed: ` +
          `retry in ${WAIT_RETRY_AFTER_S} s, or read the call without wait.`,
        WAIT_RETRY_AFTER_S,
      );
    }
    this.open.set(key, taken + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    };
  }
}
