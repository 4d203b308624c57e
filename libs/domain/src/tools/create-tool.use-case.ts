import { Injectable } from '@nestjs/common';
import { HttpToolsRepository, isUniqueViolation } from '../../../persistence/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { DomainError, assertNoProblems } from '../errors.js';
import { newId } from '../ids.js';
import { type HttpToolDefinition, toolDefinitionProblems } from './http-tool.js';
import { type HttpToolRead, httpToolColumns, httpToolFromRow } from './http-tool-record.js';

export type CreateToolInput = Omit<
  HttpToolDefinition,
  'response_description' | 'agent_description' | 'retry_window' | 'configurable' | 'allow_multiple'
> &
  Partial<
    Pick<
      HttpToolDefinition,
      'response_description' | 'agent_description' | 'retry_window' | 'configurable' | 'allow_multiple'
    >
  >;

export function configuratorMissing(appName: string): DomainError {
  return DomainError.conflict(
    `A configurable tool is set up on the app's configurator page, and app "${appName}" has no embedded_page_url: ` +
      'set it first (PATCH /v1/apps/{app_id}).',
  );
}

@Injectable()
export class CreateTool {
  constructor(
    private readonly tools: HttpToolsRepository,
    private readonly findOwnedApp: FindOwnedApp,
  ) {}

  async execute(developerId: string, appId: string, input: CreateToolInput): Promise<HttpToolRead> {
    const definition: HttpToolDefinition = {
      ...input,
      response_description: input.response_description ?? null,
      agent_description: input.agent_description ?? null,
      retry_window: input.retry_window ?? null,
      configurable: input.configurable ?? false,
      allow_multiple: input.allow_multiple ?? false,
    };
    assertNoProblems(toolDefinitionProblems(definition));
    const app = await this.findOwnedApp.execute(developerId, appId);
    if (definition.configurable && !app.embeddedPageUrl) throw configuratorMissing(app.name);
    let created;
    try {
      created = await this.tools.create(developerId, appId, newId('tool'), httpToolColumns(definition));
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw DomainError.conflict(
          `App "${app.name}" already has a tool named "${definition.name}": tool names are unique in an app.`,
        );
      }
      throw error;
    }
    if (!created) throw DomainError.notFound(`App "${appId}"`);
    // A new tool: no installation has approved any definition of it yet.
    return { ...httpToolFromRow(created), installations_on_older_definition: 0 };
  }
}
