import { mcpCallTimeoutS } from '../../../../../libs/domain/src/index.js';
import type { App } from '../../../../../libs/persistence/src/index.js';

/** An app as the API shows it, its MCP call deadline the app's own or `defaultMcpCallTimeoutS`: never a secret. */
export function presentApp(app: App, defaultMcpCallTimeoutS: number) {
  return {
    id: app.id,
    name: app.name,
    display_name: app.displayName,
    embedded_page_url: app.embeddedPageUrl,
    developer_page_url: app.developerPageUrl,
    agent_tools: {
      enabled: app.agentToolsEnabled,
      mode: app.agentToolsMode,
      mcp_call_timeout_s: mcpCallTimeoutS(app, defaultMcpCallTimeoutS),
    },
    delivery_limits: { max_in_flight: app.deliveryMaxInFlight, max_per_second: app.deliveryMaxPerSecond },
    created_at: app.createdAt.toISOString(),
    updated_at: app.updatedAt.toISOString(),
  };
}
