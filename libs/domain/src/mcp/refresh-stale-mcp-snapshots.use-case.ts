import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { McpToolsRepository } from '../../../persistence/src/index.js';
import { RefreshMcpSnapshot } from './refresh-mcp-snapshot.use-case.js';

/** The most snapshots one run reloads; the rest wait for the next run. */
const STALE_PER_RUN = 50;

/**
 * Reloads the MCP snapshots older than MCP_SNAPSHOT_TTL_S (or never loaded) of apps whose tools are on, one server at
 * a time; one whose refreshes fail is retried when its back-off says (snapshotRetryAt).
 */
@Injectable()
export class RefreshStaleMcpSnapshots {
  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly snapshots: McpToolsRepository,
    private readonly refresh: RefreshMcpSnapshot,
  ) {}

  /** The errors of refreshes that failed outright (an unreachable server is recorded on its app instead). */
  async execute(now = new Date()): Promise<string[]> {
    const before = new Date(now.getTime() - this.env.MCP_SNAPSHOT_TTL_S * 1000);
    const stale = await this.snapshots.staleApps(before, now, STALE_PER_RUN);
    const errors: string[] = [];
    // One server at a time: a slow one delays only the next refresh, never a tool call.
    for (const app of stale) {
      await this.refresh.execute(app.id, now).catch((error: Error) => errors.push(error.message));
    }
    return errors;
  }
}
