import { Injectable, Logger } from '@nestjs/common';
import { AppsRepository, type McpToolSnapshot, McpToolsRepository } from '../../../persistence/src/index.js';
import { McpClients } from '../../../mcp/src/index.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import { mcpSnapshotEntries } from './mcp-snapshot.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { describeMcpError } from './mcp-error.js';
import { McpTargets } from './mcp-targets.js';

export interface RefreshOutcome {
  ok: boolean;
  error: string | null;
  tools: McpToolSnapshot[];
}

/**
 * Reloads an app's tool snapshot from its MCP server (every page of tools/list). A failed
 * refresh keeps the previous snapshot and records why.
 */
@Injectable()
export class RefreshMcpSnapshot {
  private readonly logger = new Logger('McpSnapshot');

  constructor(
    private readonly apps: AppsRepository,
    private readonly snapshots: McpToolsRepository,
    private readonly clients: McpClients,
    private readonly targets: McpTargets,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(appId: string): Promise<RefreshOutcome> {
    const app = await this.apps.getById(appId);
    if (!app) throw DomainError.notFound(`App "${appId}"`);
    const now = new Date();
    const target = await this.targets.of(app);
    let listed;
    try {
      listed = await this.clients.listTools(target);
    } catch (error) {
      const reason = `could not load tools from ${app.mcpUrl}: ${describeMcpError(error)}`;
      this.logger.warn(`app ${app.id}: ${reason}`);
      await this.snapshots.recordFailure(app.id, reason, now);
      return { ok: false, error: reason, tools: await this.snapshots.list(app.id) };
    }
    const entries = mcpSnapshotEntries(app.name, listed);
    await this.snapshots.replace(
      app.id,
      entries.map((entry, position) => ({
        id: newId('mcptool'),
        name: entry.name,
        title: entry.title ?? null,
        description: entry.description ?? null,
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it for Prisma JSON input
        inputSchema: entry.inputSchema as object,
        outputSchema: (entry.outputSchema as object | undefined) ?? undefined,
        annotations: (entry.annotations as object | undefined) ?? undefined,
        execution: entry.execution ?? undefined,
        available: entry.available,
        reason: entry.reason,
        position,
      })),
      now,
    );
    await this.toolsets.invalidateApp(app.id);
    return { ok: true, error: null, tools: await this.snapshots.list(app.id) };
  }
}
