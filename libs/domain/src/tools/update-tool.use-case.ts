import { Injectable } from '@nestjs/common';
import { HttpToolsRepository, ToolInstancesRepository } from '../../../persistence/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { DomainError, assertNoProblems } from '../errors.js';
import { configuratorMissing } from './create-tool.use-case.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { OlderDefinitionCounts } from '../approvals/older-definition-counts.js';
import { httpToolDefinition } from '../approvals/tool-definition.js';
import { type HttpToolDefinition, toolDefinitionProblems } from './http-tool.js';
import { type HttpToolRead, httpToolColumns, httpToolFromRow } from './http-tool-record.js';
import type { ConfiguredParameter } from '../calls/accepting/tool-arguments.js';
import { configurationProblemOf } from '../instances/tool-instance.js';

/** Any field but `name`; null clears an optional field. */
export type UpdateToolInput = Partial<Omit<HttpToolDefinition, 'name'>>;

/** Merges the change into the stored tool, then checks the merged tool as a whole. */
export function mergeToolUpdate(current: HttpToolDefinition, change: UpdateToolInput): HttpToolDefinition {
  const merged = { ...current, ...stripUndefined(change) };
  // Switching to instant drops the stored retry window unless the body sets one (which is then refused).
  if (change.execution_mode === 'instant' && change.retry_window === undefined) merged.retry_window = null;
  return merged;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

@Injectable()
export class UpdateTool {
  constructor(
    private readonly tools: HttpToolsRepository,
    private readonly instances: ToolInstancesRepository,
    private readonly findOwnedApp: FindOwnedApp,
    private readonly toolsets: AgentToolsets,
    private readonly olderDefinitions: OlderDefinitionCounts,
  ) {}

  async execute(developerId: string, appId: string, toolId: string, change: UpdateToolInput): Promise<HttpToolRead> {
    const app = await this.findOwnedApp.execute(developerId, appId);
    const row = await this.tools.get(developerId, appId, toolId);
    if (!row) throw DomainError.notFound(`Tool "${toolId}"`);
    const current = httpToolFromRow(row);
    const merged = mergeToolUpdate(current, change);
    assertNoProblems(toolDefinitionProblems(merged));

    if (merged.configurable && !current.configurable && !app.embeddedPageUrl) throw configuratorMissing(app.name);
    if (current.configurable && !merged.configurable) {
      const count = await this.instances.countForHttpTool(toolId);
      if (count > 0) {
        throw DomainError.conflict(
          `configurable cannot be turned off while agents have ${count} instance(s) of this tool: remove them first.`,
        );
      }
    }
    if (current.allow_multiple && !merged.allow_multiple) {
      const most = await this.instances.maxPerAgentForHttpTool(toolId);
      if (most > 1) {
        throw DomainError.conflict(
          `allow_multiple cannot be turned off while an agent has ${most} instances of this tool: leave at most one per agent first.`,
        );
      }
    }
    const updated = await this.tools.update(developerId, appId, toolId, httpToolColumns(merged));
    if (!updated) throw DomainError.notFound(`Tool "${toolId}"`);
    if (change.parameters !== undefined) await this.checkInstances(toolId, merged.parameters);
    await this.toolsets.invalidateApp(appId);
    const definition = httpToolDefinition(updated);
    const older = await this.olderDefinitions.of(appId, 'http', [{ name: updated.name, definition }]);
    return { ...httpToolFromRow(updated), installations_on_older_definition: older.get(updated.name) ?? 0 };
  }

  /**
   * New parameters: each instance whose configured parameters no longer fit them needs configuration (not offered,
   * calls 409 saying why) rather than refusing every call's arguments; one that fits again is active again.
   */
  private async checkInstances(toolId: string, parameters: HttpToolDefinition['parameters']): Promise<void> {
    const instances = await this.instances.configuredForHttpTool(toolId);
    const problems = instances.map((instance) => ({
      id: instance.id,
      problem: configurationProblemOf(parameters, instance.configuredParameters as ConfiguredParameter[]),
    }));
    await this.instances.setConfigurationProblems(toolId, problems);
  }
}
