import { Injectable, Logger } from '@nestjs/common';
import { type App, AppsRepository, type McpToolSnapshot, McpToolsRepository } from '../../../persistence/src/index.js';
import { McpClients, type McpServerTarget } from '../../../mcp/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { DomainError, ErrorCode } from '../errors.js';
import { newId } from '../ids.js';
import { mcpSnapshotEntries } from './mcp-snapshot.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';

/** An app's MCP server as a connection target, its auth header value decrypted for this use only. */
@Injectable()
export class McpTargets {
  constructor(private readonly secrets: SecretBox) {}

  async of(app: App): Promise<McpServerTarget> {
    if (!app.mcpUrl) throw DomainError.conflict(`App "${app.name}" has no MCP server URL: set it with PUT /v1/apps/{app_id}/agent-tools.`);
    return {
      appId: app.id,
      url: app.mcpUrl,
      headerName: app.mcpAuthHeaderName,
      headerValue: app.mcpAuthHeaderValueEnc ? await this.secrets.decrypt(app.mcpAuthHeaderValueEnc) : null,
    };
  }
}

/** Why an MCP server could not be used, in words without secrets. */
export function describeMcpError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const status = (error as { status?: number }).status;
  const detail = cause?.code ?? cause?.message;
  return `${error.message}${status ? ` (HTTP ${status})` : ''}${detail && !error.message.includes(detail) ? ` (${detail})` : ''}`;
}

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
        inputSchema: entry.inputSchema as object,
        outputSchema: (entry.outputSchema as object | undefined) ?? undefined,
        annotations: (entry.annotations as object | undefined) ?? undefined,
        execution: (entry.execution as object | undefined) ?? undefined,
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

/** The developer's "refresh now": 503 with the reason when the server cannot be reached (the old snapshot stays). */
@Injectable()
export class RefreshAppMcpTools {
  constructor(
    private readonly findOwnedApp: FindOwnedApp,
    private readonly refresh: RefreshMcpSnapshot,
  ) {}

  async execute(developerId: string, appId: string): Promise<RefreshOutcome> {
    await this.findOwnedApp.execute(developerId, appId);
    const outcome = await this.refresh.execute(appId);
    if (!outcome.ok) {
      throw new DomainError(ErrorCode.Unavailable, `${outcome.error}. The previous snapshot (${outcome.tools.length} tools) is kept.`);
    }
    return outcome;
  }
}

@Injectable()
export class ListAppMcpTools {
  constructor(
    private readonly findOwnedApp: FindOwnedApp,
    private readonly snapshots: McpToolsRepository,
  ) {}

  async execute(developerId: string, appId: string): Promise<{ app: App; tools: McpToolSnapshot[] }> {
    const app = await this.findOwnedApp.execute(developerId, appId);
    return { app, tools: await this.snapshots.list(appId) };
  }
}
