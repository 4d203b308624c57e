import { INTERNAL_MCP_HEADER_PREFIX } from '../../../mcp/src/index.js';
import type { App } from '../../../persistence/src/index.js';
import type { AgentToolsMode } from './app.js';

export const AUTH_HEADER_VALUE_ACTIONS = ['preserve', 'replace', 'clear'] as const;
export type AuthHeaderValueAction = (typeof AUTH_HEADER_VALUE_ACTIONS)[number];

/** Used when a value is set without a header name. */
export const DEFAULT_MCP_AUTH_HEADER_NAME = 'Authorization';

/** Headers the MCP transport sets itself; an auth header may not replace them. */
export const RESERVED_MCP_HEADERS = [
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'user-agent',
] as const;

/** Whether an app's MCP auth header may be called `name`: not one the transport sets, nor one Toolgate keeps. */
export function isAllowedMcpAuthHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return !(RESERVED_MCP_HEADERS as readonly string[]).includes(lower) && !lower.startsWith(INTERNAL_MCP_HEADER_PREFIX);
}

/** The range of an app's MCP call deadline, in seconds (docs/product.md: 30 s by default, at most 120 s). */
export const MCP_CALL_TIMEOUT_RANGE_S = { min: 1, max: 120 } as const;

/** The deadline of an app's MCP calls, in seconds: its own, else the deployment's default (MCP_CALL_TIMEOUT_S). */
export function mcpCallTimeoutS(app: Pick<App, 'mcpCallTimeoutS'>, defaultS: number): number {
  return app.mcpCallTimeoutS ?? defaultS;
}

export interface AgentToolsSettings {
  enabled: boolean;
  mode: AgentToolsMode;
  mcp: { url: string; auth_header_name: string | null; auth_header_value_set: boolean } | null;
  /** The deadline its MCP calls get: its own, or the default when it set none. */
  mcp_call_timeout_s: number;
}

export function agentToolsSettingsOf(app: App, defaultMcpCallTimeoutS: number): AgentToolsSettings {
  return {
    enabled: app.agentToolsEnabled,
    mode: app.agentToolsMode as AgentToolsMode,
    mcp_call_timeout_s: mcpCallTimeoutS(app, defaultMcpCallTimeoutS),
    mcp: app.mcpUrl
      ? {
          url: app.mcpUrl,
          auth_header_name: app.mcpAuthHeaderName,
          auth_header_value_set: app.mcpAuthHeaderValueEnc !== null,
        }
      : null,
  };
}
