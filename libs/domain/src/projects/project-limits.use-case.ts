import { Injectable } from '@nestjs/common';
import { ProjectLimitsRepository } from '../../../persistence/src/index.js';
import { CallQuotas, type QuotasInForce } from './call-quotas.js';

/** What a project sets: each quota a whole number ≥ 1, or null (the deployment's default, if any, applies). */
export interface ProjectLimitsInput {
  agent_calls_per_minute: number | null;
  project_calls_per_minute: number | null;
}

/** The project's call quotas in force: its own, else DEFAULT_AGENT_CALLS_PER_MINUTE / DEFAULT_PROJECT_CALLS_PER_MINUTE. */
@Injectable()
export class GetProjectLimits {
  constructor(private readonly quotas: CallQuotas) {}

  execute(projectId: string): Promise<QuotasInForce> {
    this.quotas.forget(projectId); // read as stored now, whichever replica set them
    return this.quotas.inForce(projectId);
  }
}

/** Sets the project's call quotas (a whole replacement) and answers those in force. */
@Injectable()
export class PutProjectLimits {
  constructor(
    private readonly stored: ProjectLimitsRepository,
    private readonly quotas: CallQuotas,
  ) {}

  async execute(projectId: string, input: ProjectLimitsInput): Promise<QuotasInForce> {
    await this.stored.put(projectId, {
      agentCallsPerMinute: input.agent_calls_per_minute,
      projectCallsPerMinute: input.project_calls_per_minute,
    });
    // This replica applies them at once; the others within CallQuotas' cache time.
    this.quotas.forget(projectId);
    return this.quotas.inForce(projectId);
  }
}
