import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { type App, AppsRepository } from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { DomainError, type FieldProblem, assertNoProblems } from '../errors.js';
import type { AgentToolsMode } from './app.js';
import {
  type AgentToolsSettings,
  type AuthHeaderValueAction,
  DEFAULT_MCP_AUTH_HEADER_NAME,
  agentToolsSettingsOf,
} from './agent-tools-settings.js';
import { FindOwnedApp } from './find-owned-app.js';
import { AppMcpSessions } from '../mcp/app-mcp-sessions.js';
import { RefreshMcpSnapshot } from '../mcp/refresh-mcp-snapshot.use-case.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';

export interface PutAgentToolsSettingsInput {
  enabled: boolean;
  mode: AgentToolsMode;
  /** Omitted: the stored MCP settings stay. null: they are removed. */
  mcp?: {
    url: string;
    auth_header_name?: string;
    auth_header_value?: string;
    auth_header_value_action: AuthHeaderValueAction;
  } | null;
  /** The deadline of the app's MCP calls, 1 to 120 s. Omitted: the stored one stays. null: the default again. */
  mcp_call_timeout_s?: number | null;
}

/** The rules between the fields of an agent-tools settings body (422 when broken). */
export function agentToolsSettingsProblems(input: PutAgentToolsSettingsInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (input.mode === 'mcp' && !input.mcp) {
    problems.push({
      path: 'mcp',
      message: 'required when mode is "mcp": give the MCP server url and auth_header_value_action',
    });
  }
  const mcp = input.mcp;
  if (mcp?.auth_header_value_action === 'replace' && mcp.auth_header_value === undefined) {
    problems.push({ path: 'mcp.auth_header_value', message: 'required when auth_header_value_action is "replace"' });
  }
  if (mcp && mcp.auth_header_value_action !== 'replace' && mcp.auth_header_value !== undefined) {
    problems.push({
      path: 'mcp.auth_header_value',
      message: `given with auth_header_value_action "${mcp.auth_header_value_action}", which ignores it: use "replace" to store it`,
    });
  }
  return problems;
}

type McpSettings = Pick<
  App,
  'agentToolsEnabled' | 'agentToolsMode' | 'mcpUrl' | 'mcpAuthHeaderName' | 'mcpAuthHeaderValueEnc'
>;

/**
 * Whether sessions opened with the `before` settings must end: the app's tools are off or not MCP now, or the URL or
 * auth header differs (a value replaced by the same one too: its ciphertext differs, and it cannot be told apart).
 */
export function mcpSessionsOutlived(before: McpSettings, after: McpSettings): boolean {
  return (
    !after.agentToolsEnabled ||
    after.agentToolsMode !== 'mcp' ||
    after.mcpUrl !== before.mcpUrl ||
    after.mcpAuthHeaderName !== before.mcpAuthHeaderName ||
    after.mcpAuthHeaderValueEnc !== before.mcpAuthHeaderValueEnc
  );
}

/** Switches the app's agent tools on or off, chooses the mode and sets the MCP server; the auth header value is write-only. */
@Injectable()
export class PutAgentToolsSettings {
  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly apps: AppsRepository,
    private readonly secrets: SecretBox,
    private readonly findOwnedApp: FindOwnedApp,
    private readonly refreshMcpSnapshot: RefreshMcpSnapshot,
    private readonly toolsets: AgentToolsets,
    private readonly mcpSessions: AppMcpSessions,
  ) {}

  async execute(developerId: string, appId: string, input: PutAgentToolsSettingsInput): Promise<AgentToolsSettings> {
    assertNoProblems(agentToolsSettingsProblems(input));
    const app = await this.findOwnedApp.execute(developerId, appId);
    const mcpColumns = await this.mcpColumns(app.mcpAuthHeaderName, input.mcp);
    const updated = await this.apps.update(developerId, appId, {
      agentToolsEnabled: input.enabled,
      agentToolsMode: input.mode,
      ...mcpColumns,
      ...(input.mcp_call_timeout_s === undefined ? {} : { mcpCallTimeoutS: input.mcp_call_timeout_s }),
      // MCP settings given anew: the refresh back-off of the old ones starts over
      ...(input.mcp === undefined ? {} : { mcpSnapshotFailures: 0, mcpSnapshotRetryAt: null }),
    });
    if (!updated) throw DomainError.notFound(`App "${appId}"`);
    await this.toolsets.invalidateApp(appId);
    if (mcpSessionsOutlived(app, updated)) await this.mcpSessions.end(appId);
    // A switched-off app's server is not talked to (its sessions just ended); POST …/mcp/refresh still loads it.
    if (updated.agentToolsEnabled && updated.agentToolsMode === 'mcp' && updated.mcpUrl && input.mcp) {
      // Load the server's tools now, without making the developer wait; a failure is recorded on the app.
      void this.refreshMcpSnapshot.execute(appId).catch(() => undefined);
    }
    return agentToolsSettingsOf(updated, this.env.MCP_CALL_TIMEOUT_S);
  }

  private async mcpColumns(storedHeaderName: string | null, mcp: PutAgentToolsSettingsInput['mcp']) {
    if (mcp === undefined) return {};
    if (mcp === null) return { mcpUrl: null, mcpAuthHeaderName: null, mcpAuthHeaderValueEnc: null };
    switch (mcp.auth_header_value_action) {
      case 'replace':
        return {
          mcpUrl: mcp.url,
          mcpAuthHeaderName: mcp.auth_header_name ?? storedHeaderName ?? DEFAULT_MCP_AUTH_HEADER_NAME,
          mcpAuthHeaderValueEnc: await this.secrets.encrypt(mcp.auth_header_value as string),
        };
      case 'clear':
        return { mcpUrl: mcp.url, mcpAuthHeaderName: mcp.auth_header_name ?? null, mcpAuthHeaderValueEnc: null };
      case 'preserve':
        return { mcpUrl: mcp.url, mcpAuthHeaderName: mcp.auth_header_name ?? storedHeaderName };
    }
  }
}
