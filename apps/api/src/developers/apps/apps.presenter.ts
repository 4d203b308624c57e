import type { App } from '../../../../../libs/persistence/src/index.js';

/** An app as the API shows it: never a secret. */
export function presentApp(app: App) {
  return {
    id: app.id,
    name: app.name,
    display_name: app.displayName,
    embedded_page_url: app.embeddedPageUrl,
    developer_page_url: app.developerPageUrl,
    agent_tools: { enabled: app.agentToolsEnabled, mode: app.agentToolsMode },
    created_at: app.createdAt.toISOString(),
    updated_at: app.updatedAt.toISOString(),
  };
}
