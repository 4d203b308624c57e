import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { RefreshStaleMcpSnapshots } from '../../../libs/domain/src/index.js';
import { PeriodicTask } from './periodic-task.js';

/**
 * Keeps MCP snapshots fresh: reloads those older than MCP_SNAPSHOT_TTL_S. The connections it
 * opens stay open, so a server's `notifications/tools/list_changed` triggers a reload at once.
 */
@Injectable()
export class McpSnapshotRefresher extends PeriodicTask {
  protected readonly everyMs: number;

  constructor(
    @Inject(ENV) env: Env,
    private readonly refreshStale: RefreshStaleMcpSnapshots,
  ) {
    super();
    this.everyMs = Math.min(env.MCP_SNAPSHOT_TTL_S * 1000, 30_000);
  }

  protected async run(): Promise<void> {
    for (const error of await this.refreshStale.execute()) this.logger.warn(error);
  }
}
