import type { HttpTool, HttpToolColumns } from '../../../persistence/src/index.js';
import type { ExecutionMode, RetryWindow } from '../../../persistence/src/index.js';
import type { AttemptTimeoutS, HttpToolDefinition, ToolParameter } from './http-tool.js';

export interface HttpToolRecord extends HttpToolDefinition {
  id: string;
  app_id: string;
  created_at: Date;
  updated_at: Date;
}

/** A tool as its developer reads it: with how many installations' agents still see an older definition of it. */
export interface HttpToolRead extends HttpToolRecord {
  installations_on_older_definition: number;
}

export function httpToolFromRow(row: HttpTool): HttpToolRecord {
  return {
    id: row.id,
    app_id: row.appId,
    name: row.name,
    title: { ru: row.titleRu, en: row.titleEn },
    description: { ru: row.descriptionRu, en: row.descriptionEn },
    response_description:
      row.responseDescriptionRu !== null && row.responseDescriptionEn !== null
        ? { ru: row.responseDescriptionRu, en: row.responseDescriptionEn }
        : null,
    agent_description: row.agentDescription,
    handler_url: row.handlerUrl,
    parameters: row.parameters as ToolParameter[],
    configurable: row.configurable,
    allow_multiple: row.allowMultiple,
    execution_mode: row.executionMode as ExecutionMode,
    attempt_timeout_s: row.attemptTimeoutS as AttemptTimeoutS,
    retry_window: row.retryWindow as RetryWindow | null,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function httpToolColumns(tool: HttpToolDefinition): HttpToolColumns {
  return {
    name: tool.name,
    titleRu: tool.title.ru,
    titleEn: tool.title.en,
    descriptionRu: tool.description.ru,
    descriptionEn: tool.description.en,
    responseDescriptionRu: tool.response_description?.ru ?? null,
    responseDescriptionEn: tool.response_description?.en ?? null,
    agentDescription: tool.agent_description,
    handlerUrl: tool.handler_url,
    parameters: tool.parameters.map(({ name, type, description, required }) => ({ name, type, description, required })),
    configurable: tool.configurable,
    allowMultiple: tool.allow_multiple,
    executionMode: tool.execution_mode,
    attemptTimeoutS: tool.attempt_timeout_s,
    retryWindow: tool.retry_window,
  };
}
