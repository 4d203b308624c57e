import { Inject, Injectable } from '@nestjs/common';
import { FleetCounters } from '../../../broadcast/src/index.js';
import { ENV, type Env } from '../../../config/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { ProjectLimitsRepository } from '../../../persistence/src/index.js';
import type { AgentRef } from '../agents/agent-ref.js';
import { DomainError } from '../errors.js';
import { ShortLivedCache } from '../short-lived-cache.js';

/** A project's call quotas in force: its own, else the deployment's defaults; null: no quota. */
export interface QuotasInForce {
  agent_calls_per_minute: number | null;
  project_calls_per_minute: number | null;
}

/** The quotas' window: a sliding minute. */
const WINDOW_MS = 60_000;
/** How long a process uses a project's quotas as it read them: a PUT reaches the other API replicas within this. */
const CACHE_MS = 1000;

/**
 * A project's call quotas (API.md "Limits across the fleet"): calls accepted per agent and per project in a sliding
 * minute, counted in Redis across REST, MCP and every API replica (FleetCounters). A call over a quota is refused
 * before anything is stored or sent; one that is admitted counts in both windows, one refused in neither.
 */
@Injectable()
export class CallQuotas {
  private readonly cached = new ShortLivedCache<QuotasInForce>(CACHE_MS);

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly stored: ProjectLimitsRepository,
    private readonly counters: FleetCounters,
    private readonly metrics: Metrics,
  ) {}

  /** Counts a call of `agent`, or refuses it with 429 (rate_limited) and the whole seconds until one would pass. */
  async admit(agent: AgentRef): Promise<void> {
    const quotas = await this.inForce(agent.projectId);
    if (quotas.agent_calls_per_minute === null && quotas.project_calls_per_minute === null) return;
    const answer = await this.counters.takeWindows(
      `project:${encodeURIComponent(agent.projectId)}`,
      [
        { name: `agent:${encodeURIComponent(agent.agentId)}`, limit: quotas.agent_calls_per_minute },
        { name: 'project', limit: quotas.project_calls_per_minute },
      ],
      WINDOW_MS,
    );
    if (answer.kind !== 'full') return;
    const quota = answer.window === 'project' ? 'project_calls_per_minute' : 'agent_calls_per_minute';
    this.metrics.callsOverQuota.inc({ quota });
    const whose = quota === 'project_calls_per_minute' ? 'the project' : `agent "${agent.agentId}"`;
    throw DomainError.rateLimited(
      `Over the call quota ${quota}: ${quotas[quota]} calls a minute of ${whose}. Nothing was sent or stored; ` +
        `retry after the Retry-After seconds, or raise the quota (PUT /v1/projects/${agent.projectId}/limits).`,
      Math.max(1, Math.ceil(answer.retryInMs / 1000)),
    );
  }

  /** The project's quotas in force, read at most once a CACHE_MS per process. */
  inForce(projectId: string): Promise<QuotasInForce> {
    return this.cached.get(projectId, async () => {
      const own = await this.stored.get(projectId);
      return {
        agent_calls_per_minute: own?.agentCallsPerMinute ?? this.env.DEFAULT_AGENT_CALLS_PER_MINUTE ?? null,
        project_calls_per_minute: own?.projectCallsPerMinute ?? this.env.DEFAULT_PROJECT_CALLS_PER_MINUTE ?? null,
      };
    });
  }

  /** This process reads the project's quotas again at its next call (they were just changed here). */
  forget(projectId: string): void {
    this.cached.forget(projectId);
  }
}
