import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Answers, Operation, Problems } from '../../common/openapi.js';
import { McpSnapshotResponseSchema } from '../apps/apps.schemas.js';
import { type AppMcpTools, ListAppMcpTools, RefreshAppMcpTools } from '../../../../../libs/domain/src/index.js';
import type { McpToolSnapshot } from '../../../../../libs/persistence/src/index.js';
import { Auth, DeveloperId } from '../../common/auth.guard.js';

function presentMcpTool(tool: McpToolSnapshot, olderDefinitions: ReadonlyMap<string, number>) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    input_schema: tool.inputSchema,
    annotations: tool.annotations,
    available: tool.available,
    installations_on_older_definition: olderDefinitions.get(tool.name) ?? 0,
    ...(tool.available ? {} : { reason: tool.reason }),
  };
}

function presentSnapshot({ app, tools, olderDefinitions }: AppMcpTools) {
  return {
    data: tools.map((tool) => presentMcpTool(tool, olderDefinitions)),
    refreshed_at: app.mcpSnapshotRefreshedAt?.toISOString() ?? null,
    last_attempt_at: app.mcpSnapshotAttemptedAt?.toISOString() ?? null,
    last_error: app.mcpSnapshotError,
  };
}

@ApiTags('mcp')
@ApiBearerAuth()
@Problems(401, 403, 404, 503)
@Auth('developer')
@Controller('v1/apps/:app_id/mcp')
export class McpToolsController {
  constructor(
    private readonly listAppMcpTools: ListAppMcpTools,
    private readonly refreshAppMcpTools: RefreshAppMcpTools,
  ) {}

  /** The last snapshot of the app's MCP server tools, each `available` or not with the reason. */
  @Get('tools')
  @Operation('listAppMcpTools', "Read the snapshot of the app's MCP server tools")
  @Answers(200, McpSnapshotResponseSchema, 'The snapshot')
  async tools(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    return presentSnapshot(await this.listAppMcpTools.execute(developerId, appId));
  }

  /** Reloads the snapshot now; 503 with the reason when the server cannot be reached (the old snapshot stays). */
  @Post('refresh')
  @HttpCode(200)
  @Operation('refreshAppMcpTools', "Reload the snapshot of the app's MCP server tools")
  @Answers(200, McpSnapshotResponseSchema, 'The new snapshot')
  @Problems(409)
  async refresh(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    await this.refreshAppMcpTools.execute(developerId, appId);
    return presentSnapshot(await this.listAppMcpTools.execute(developerId, appId));
  }
}
