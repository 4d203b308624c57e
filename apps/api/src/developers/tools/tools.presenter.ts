import type { HttpToolRead } from '../../../../../libs/domain/src/index.js';

export function presentTool(tool: HttpToolRead) {
  return {
    id: tool.id,
    app_id: tool.app_id,
    name: tool.name,
    title: tool.title,
    description: tool.description,
    response_description: tool.response_description,
    agent_description: tool.agent_description,
    handler_url: tool.handler_url,
    parameters: tool.parameters,
    configurable: tool.configurable,
    allow_multiple: tool.allow_multiple,
    execution_mode: tool.execution_mode,
    attempt_timeout_s: tool.attempt_timeout_s,
    retry_window: tool.retry_window,
    installations_on_older_definition: tool.installations_on_older_definition,
    created_at: tool.created_at.toISOString(),
    updated_at: tool.updated_at.toISOString(),
  };
}
