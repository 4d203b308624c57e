import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { RefreshMcpSnapshot } from '../../../libs/domain/src/index.js';
import { McpToolsRepository } from '../../../libs/persistence/src/index.js';
import { PeriodicTask } from './periodic-task.js';

/**
 * Keeps MCP snapshots fresh: reloads those older than MCP_SNAPSHOT_TTL_S. The connections it
 * opens stay open, so a server's `notifications/tools/list_changed` triggers a reload at once.
 */
@Injectable()
export class McpSnapshotRefresher extends PeriodicTask {
  protected readonly everyMs: number;

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly snapshots: McpToolsRepository,
    private readonly refresh: RefreshMcpSnapshot,
  ) {
    super();
    this.everyMs = Math.min(env.MCP_SNAPSHOT_TTL_S * 1000, 30_000);
  }

  protected async run(): Promise<void> {
    const stale = await this.snapshots.staleApps(new Date(Date.now() - this.env.MCP_SNAPSHOT_TTL_S * 1000), 50);
    // One server at a time: a slow one delays only the next refresh, never a tool call.
    for (const app of stale)
      await this.refresh.execute(app.id).catch((error: Error) => this.logger.warn(error.message));
  }
}
