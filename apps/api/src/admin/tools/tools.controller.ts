import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { CreateTool, DeleteTool, GetTool, ListTools, UpdateTool } from '../../../../../libs/domain/src/index.js';
import { Auth, DeveloperId } from '../../common/auth.guard.js';
import { jsonSchemaOf } from '../../common/openapi.js';
import { ConfirmQuerySchema, ListQuerySchema, encodeCursor, pageRequest } from '../../common/pagination.schemas.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';
import { presentTool } from './tools.presenter.js';
import { CreateToolSchema, ToolResponseSchema, UpdateToolSchema } from './tools.schemas.js';

@ApiTags('tools')
@ApiBearerAuth()
@Auth('developer')
@Controller('v1/apps/:app_id/tools')
export class ToolsController {
  constructor(
    private readonly createTool: CreateTool,
    private readonly listTools: ListTools,
    private readonly getTool: GetTool,
    private readonly updateTool: UpdateTool,
    private readonly deleteTool: DeleteTool,
  ) {}

  @Post()
  @ApiBody({ schema: jsonSchemaOf(CreateToolSchema) })
  @ApiCreatedResponse({ schema: jsonSchemaOf(ToolResponseSchema, 'output') })
  async create(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Body(new ZodValidationPipe(CreateToolSchema)) body: z.output<typeof CreateToolSchema>,
  ) {
    return presentTool(await this.createTool.execute(developerId, appId, body));
  }

  @Get()
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' } })
  async list(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Query(new ZodValidationPipe(ListQuerySchema)) query: z.output<typeof ListQuerySchema>,
  ) {
    const page = await this.listTools.execute(developerId, appId, pageRequest(query));
    return { data: page.items.map(presentTool), next_cursor: encodeCursor(page.nextAfter) };
  }

  @Get(':tool_id')
  @ApiOkResponse({ schema: jsonSchemaOf(ToolResponseSchema, 'output') })
  async get(@DeveloperId() developerId: string, @Param('app_id') appId: string, @Param('tool_id') toolId: string) {
    return presentTool(await this.getTool.execute(developerId, appId, toolId));
  }

  @Patch(':tool_id')
  @ApiBody({ schema: jsonSchemaOf(UpdateToolSchema) })
  @ApiOkResponse({ schema: jsonSchemaOf(ToolResponseSchema, 'output') })
  async update(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Param('tool_id') toolId: string,
    @Body(new ZodValidationPipe(UpdateToolSchema)) body: z.output<typeof UpdateToolSchema>,
  ) {
    const { name: _fixed, ...change } = body;
    return presentTool(await this.updateTool.execute(developerId, appId, toolId, change));
  }

  @Delete(':tool_id')
  @HttpCode(204)
  @ApiQuery({ name: 'confirm', required: true, schema: { type: 'boolean', enum: [true] } })
  async delete(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Param('tool_id') toolId: string,
    @Query(new ZodValidationPipe(ConfirmQuerySchema)) query: z.output<typeof ConfirmQuerySchema>,
  ): Promise<void> {
    await this.deleteTool.execute(developerId, appId, toolId, query.confirm);
  }
}
