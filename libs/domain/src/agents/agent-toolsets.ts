import { Injectable } from '@nestjs/common';
import { McpToolsRepository, ToolInstancesRepository } from '../../../persistence/src/index.js';
import { type AgentTool, buildAgentToolset, snapshotKey } from './agent-toolset.js';

export interface AgentRef {
  projectId: string;
  agentId: string;
}

/** Loads an agent's whole toolset: its instances with their apps and tools, and the MCP snapshots they use. */
@Injectable()
export class AgentToolsets {
  constructor(
    private readonly instances: ToolInstancesRepository,
    private readonly snapshots: McpToolsRepository,
  ) {}

  async load(agent: AgentRef): Promise<AgentTool[]> {
    const instances = await this.instances.listForAgent(agent.projectId, agent.agentId);
    const mcpAppIds = [...new Set(instances.filter((i) => i.toolKind === 'mcp').map((i) => i.appId))];
    const snapshots = await this.snapshots.listForApps(mcpAppIds);
    return buildAgentToolset(instances, new Map(snapshots.map((s) => [snapshotKey(s.appId, s.name), s])));
  }
}
