import { Inject, Injectable, Logger } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import {
  type App,
  AppsRepository,
  type McpToolSnapshot,
  McpToolsRepository,
  isDatabaseUnavailable,
} from '../../../persistence/src/index.js';
import { McpClients } from '../../../mcp/src/index.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import { mcpSnapshotEntries } from './mcp-snapshot.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { describeMcpError } from './mcp-error.js';
import { McpTargets } from './mcp-targets.js';
import { snapshotRetryAt } from './snapshot-retry.js';

export interface RefreshOutcome {
  ok: boolean;
  error: string | null;
  tools: McpToolSnapshot[];
}

/**
 * Reloads an app's tool snapshot from its MCP server (every page of tools/list). A failed
 * refresh — the server unreachable, or what it listed refused by the database — keeps the previous
 * snapshot, records why, and puts the next periodic try off (snapshotRetryAt).
 */
@Injectable()
export class RefreshMcpSnapshot {
  private readonly logger = new Logger('McpSnapshot');

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly apps: AppsRepository,
    private readonly snapshots: McpToolsRepository,
    private readonly clients: McpClients,
    private readonly targets: McpTargets,
    private readonly toolsets: AgentToolsets,
  ) {}

  /** `now`: when the refresh is made (the periodic refresh passes its run's time). */
  async execute(appId: string, now = new Date()): Promise<RefreshOutcome> {
    const app = await this.apps.getById(appId);
    if (!app) throw DomainError.notFound(`App "${appId}"`);
    const target = await this.targets.of(app);
    let listed;
    try {
      listed = await this.clients.listTools(target);
    } catch (error) {
      return this.failed(app, `could not load tools from ${app.mcpUrl}: ${describeMcpError(error)}`, now);
    }
    const entries = mcpSnapshotEntries(app.name, listed);
    try {
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
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      // Logged in full; what the developer reads names no SQL.
      this.logger.warn(`app ${app.id}: the listed tools were not stored: ${(error as Error).message}`);
      const reason = `could not store the ${entries.length} tools listed by ${app.mcpUrl}: the database refused them`;
      return this.failed(app, reason, now);
    }
    await this.toolsets.invalidateApp(app.id);
    return { ok: true, error: null, tools: await this.snapshots.list(app.id) };
  }

  private async failed(app: App, reason: string, now: Date): Promise<RefreshOutcome> {
    this.logger.warn(`app ${app.id}: ${reason}`);
    const failures = app.mcpSnapshotFailures + 1;
    const retryAt = snapshotRetryAt(failures, now, this.env.MCP_SNAPSHOT_TTL_S);
    await this.snapshots.recordFailure(app.id, { error: reason, attemptedAt: now, failures, retryAt });
    return { ok: false, error: reason, tools: await this.snapshots.list(app.id) };
  }
}
