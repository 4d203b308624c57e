import { Injectable } from '@nestjs/common';
import { ToolInstancesRepository } from '../../../persistence/src/index.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { assertNoProblems } from '../errors.js';
import { FindInstallation } from '../projects/find-installation.use-case.js';
import { InstallationToolChanges } from './installation-tool-changes.js';
import type { InstallationChanges } from './list-installation-changes.use-case.js';

/**
 * Approves pending tool definitions of an installed app (the named tools, or all): the installation's agents see them
 * at once (their toolsets' generation is bumped).
 */
@Injectable()
export class ApproveInstallationChanges {
  constructor(
    private readonly findInstallation: FindInstallation,
    private readonly toolChanges: InstallationToolChanges,
    private readonly instances: ToolInstancesRepository,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(
    projectId: string,
    installationId: string,
    tools?: readonly string[],
  ): Promise<InstallationChanges & { approved: string[] }> {
    const installation = await this.findInstallation.execute(projectId, installationId);
    const current = await this.toolChanges.current(installation.app);
    const names = new Set(current.map((tool) => tool.name));
    assertNoProblems(
      (tools ?? []).flatMap((name, index) =>
        names.has(name)
          ? []
          : [
              {
                path: `tools.${index}`,
                message: `the app has no tool "${name}" in its current mode: read GET …/changes for the tools to approve`,
              },
            ],
      ),
    );
    const chosen = tools ? new Set(tools) : names;
    const pending = (await this.toolChanges.pending(installation)).filter((change) => chosen.has(change.name));
    await this.toolChanges.approve(
      installation.id,
      pending.map(({ kind, name, proposed }) => ({ kind, name, definition: proposed })),
    );
    await this.toolsets.invalidateAgents(await this.instances.agentsOfInstallation(installation.id));
    return {
      installation,
      approved: pending.map((change) => change.name),
      changes: await this.toolChanges.pending(installation),
    };
  }
}
