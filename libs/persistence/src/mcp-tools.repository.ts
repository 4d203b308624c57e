import { Injectable } from '@nestjs/common';
import type { McpToolSnapshot, Prisma } from './generated/client.js';
import { DatabasePool, utc } from './database-pool.js';
import { PrismaService } from './prisma.service.js';
import { storableText } from './storable.js';

export type NewMcpToolSnapshot = Omit<Prisma.McpToolSnapshotUncheckedCreateInput, 'appId' | 'refreshedAt'>;

/** A refresh that failed: why, when, how many have failed in a row with it, and when the next is due. */
export interface McpSnapshotFailure {
  error: string;
  attemptedAt: Date;
  failures: number;
  retryAt: Date;
}

/**
 * Up to $2 MCP-mode apps, their tools on, whose snapshot is due: last attempted before $1 (or never), or, while its
 * refreshes fail, once its retry time ($3 is now) has come.
 */
const STALE_APPS = {
  name: 'mcp_tools_stale_apps',
  text: `SELECT id FROM apps
    WHERE agent_tools_enabled AND agent_tools_mode = 'mcp' AND mcp_url IS NOT NULL
      AND CASE WHEN mcp_snapshot_retry_at IS NOT NULL THEN mcp_snapshot_retry_at <= $3::timestamp(3)
        ELSE mcp_snapshot_attempted_at IS NULL OR mcp_snapshot_attempted_at < $1::timestamp(3) END
    LIMIT $2::int`,
};

/** The last snapshot of an MCP-mode app's tools. */
@Injectable()
export class McpToolsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DatabasePool,
  ) {}

  async list(appId: string): Promise<McpToolSnapshot[]> {
    return this.prisma.mcpToolSnapshot.findMany({ where: { appId }, orderBy: { position: 'asc' } });
  }

  /** The snapshots of several apps at once (an agent's tools come from many apps). */
  async listForApps(appIds: string[]): Promise<McpToolSnapshot[]> {
    if (appIds.length === 0) return [];
    return this.prisma.mcpToolSnapshot.findMany({ where: { appId: { in: appIds } } });
  }

  /** The tool of that name; of a name listed twice (every copy unavailable), the first copy. */
  async get(appId: string, name: string): Promise<McpToolSnapshot | null> {
    return this.prisma.mcpToolSnapshot.findFirst({ where: { appId, name }, orderBy: { position: 'asc' } });
  }

  /** Replaces the whole snapshot at once, and marks the refresh a success; concurrent refreshes of one app take turns. */
  async replace(appId: string, tools: NewMcpToolSnapshot[], refreshedAt: Date): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`mcp-snapshot:${appId}`}))`;
      await tx.mcpToolSnapshot.deleteMany({ where: { appId } });
      await tx.mcpToolSnapshot.createMany({ data: tools.map((tool) => ({ ...tool, appId, refreshedAt })) });
      await tx.app.update({
        where: { id: appId },
        data: {
          mcpSnapshotRefreshedAt: refreshedAt,
          mcpSnapshotAttemptedAt: refreshedAt,
          mcpSnapshotError: null,
          mcpSnapshotFailures: 0,
          mcpSnapshotRetryAt: null,
        },
      });
    });
  }

  /**
   * A failed refresh keeps the previous snapshot and records why (the text made storable: a server's own words may
   * hold NUL), the failures in a row, and when to try again.
   */
  async recordFailure(appId: string, failure: McpSnapshotFailure): Promise<void> {
    await this.prisma.app.update({
      where: { id: appId },
      data: {
        mcpSnapshotAttemptedAt: failure.attemptedAt,
        mcpSnapshotError: storableText(failure.error),
        mcpSnapshotFailures: failure.failures,
        mcpSnapshotRetryAt: failure.retryAt,
      },
    });
  }

  /** MCP-mode apps whose snapshot is older than `before` (or missing), or due for a retry at `now`. */
  async staleApps(before: Date, now: Date, limit: number): Promise<{ id: string }[]> {
    return this.db.rows<{ id: string }>(STALE_APPS, [utc(before), limit, utc(now)]);
  }
}
