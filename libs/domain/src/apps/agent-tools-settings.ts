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

export interface AgentToolsSettings {
  enabled: boolean;
  mode: AgentToolsMode;
  mcp: { url: string; auth_header_name: string | null; auth_header_value_set: boolean } | null;
}

export function agentToolsSettingsOf(app: App): AgentToolsSettings {
  return {
    enabled: app.agentToolsEnabled,
    mode: app.agentToolsMode as AgentToolsMode,
    mcp: app.mcpUrl
      ? {
          url: app.mcpUrl,
          auth_header_name: app.mcpAuthHeaderName,
          auth_header_value_set: app.mcpAuthHeaderValueEnc !== null,
        }
      : null,
  };
}
