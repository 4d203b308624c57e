import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Answers, Operation, Problems } from '../../common/openapi.js';
import { McpSnapshotResponseSchema } from '../apps/apps.schemas.js';
import { ListAppMcpTools, RefreshAppMcpTools } from '../../../../../libs/domain/src/index.js';
import type { App, McpToolSnapshot } from '../../../../../libs/persistence/src/index.js';
import { Auth, DeveloperId } from '../../common/auth.guard.js';

function presentMcpTool(tool: McpToolSnapshot) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    input_schema: tool.inputSchema,
    annotations: tool.annotations,
    available: tool.available,
    ...(tool.available ? {} : { reason: tool.reason }),
  };
}

function presentSnapshot(app: App, tools: McpToolSnapshot[]) {
  return {
    data: tools.map(presentMcpTool),
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
    const { app, tools } = await this.listAppMcpTools.execute(developerId, appId);
    return presentSnapshot(app, tools);
  }

  /** Reloads the snapshot now; 503 with the reason when the server cannot be reached (the old snapshot stays). */
  @Post('refresh')
  @HttpCode(200)
  @Operation('refreshAppMcpTools', "Reload the snapshot of the app's MCP server tools")
  @Answers(200, McpSnapshotResponseSchema, 'The new snapshot')
  @Problems(409)
  async refresh(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    await this.refreshAppMcpTools.execute(developerId, appId);
    const { app, tools } = await this.listAppMcpTools.execute(developerId, appId);
    return presentSnapshot(app, tools);
  }
}
