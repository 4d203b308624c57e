import { Injectable, Logger } from '@nestjs/common';
import {
  ApprovedToolDefinitionsRepository,
  McpToolsRepository,
  ToolInstancesRepository,
} from '../../../persistence/src/index.js';
import { ToolsetGenerations } from '../../../broadcast/src/index.js';
import { type AgentRef, agentKey } from './agent-ref.js';
import { approvalKey } from '../approvals/tool-definition.js';
import { type AgentTool, buildAgentToolset, snapshotKey } from './agent-tool.js';

export type { AgentRef } from './agent-ref.js';

const CACHE_TTL_MS = 5 * 60_000;
const CACHE_MAX_AGENTS = 10_000;

interface CachedToolset {
  generation: string;
  cachedAt: number;
  tools: AgentTool[];
}

/**
 * An agent's whole toolset (instances, apps, tools, MCP snapshots), cached per API process and
 * checked against the agent's generation on every use (ToolsetGenerations: what this replica heard
 * of the agent's bumps, or the counter in Redis while it cannot hear). If Redis cannot answer, the
 * database is read.
 */
@Injectable()
export class AgentToolsets {
  private readonly logger = new Logger('AgentToolsets');
  private readonly cache = new Map<string, CachedToolset>();

  constructor(
    private readonly instances: ToolInstancesRepository,
    private readonly snapshots: McpToolsRepository,
    private readonly generations: ToolsetGenerations,
    private readonly approvals: ApprovedToolDefinitionsRepository,
  ) {}

  async load(agent: AgentRef): Promise<AgentTool[]> {
    const key = agentKey(agent);
    // Read before the database: a change committed meanwhile bumps past it and the next read rebuilds.
    const generation = await this.generations.current(key).catch(() => null);
    const cached = this.cache.get(key);
    if (
      generation !== null &&
      cached &&
      cached.generation === generation &&
      Date.now() - cached.cachedAt < CACHE_TTL_MS
    )
      return cached.tools;
    const tools = await this.fromDatabase(agent);
    if (generation !== null) this.remember(key, { generation, cachedAt: Date.now(), tools });
    return tools;
  }

  private async fromDatabase(agent: AgentRef): Promise<AgentTool[]> {
    const instances = await this.instances.listForAgent(agent.projectId, agent.agentId);
    const mcpAppIds = [...new Set(instances.filter((i) => i.toolKind === 'mcp').map((i) => i.appId))];
    const asking = [
      ...new Set(instances.filter((i) => i.installation.approveChanges === 'ask').map((i) => i.installationId)),
    ];
    const [snapshots, approvals] = await Promise.all([
      this.snapshots.listForApps(mcpAppIds),
      this.approvals.listForInstallations(asking),
    ]);
    return buildAgentToolset(
      instances,
      new Map(snapshots.map((s) => [snapshotKey(s.appId, s.name), s])),
      new Map(approvals.map((a) => [approvalKey(a.installationId, a.toolKind, a.toolName), a])),
    );
  }

  private remember(key: string, entry: CachedToolset): void {
    this.cache.delete(key);
    if (this.cache.size >= CACHE_MAX_AGENTS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, entry);
  }

  /** After a change to one agent's instances. */
  async invalidateAgent(agent: AgentRef): Promise<void> {
    await this.bump([agentKey(agent)]);
  }

  /** After a change to an app (settings, tools, snapshot): every agent that has one of its tools. */
  async invalidateApp(appId: string): Promise<void> {
    const agents = await this.instances.agentsOfApp(appId);
    await this.bump(agents.map((agent) => agentKey(agent)));
  }

  /** After removing an installation: the agents it had given tools to (read before the delete). */
  async invalidateAgents(agents: AgentRef[]): Promise<void> {
    await this.bump(agents.map((agent) => agentKey(agent)));
  }

  private async bump(keys: string[]): Promise<void> {
    for (const key of keys) this.cache.delete(key);
    await this.generations
      .bump(keys)
      .catch((error: Error) =>
        this.logger.warn(`tool lists of ${keys.length} agent(s) may be served stale for up to 5 min: ${error.message}`),
      );
  }
}
