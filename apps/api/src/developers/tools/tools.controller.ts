import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { CreateTool, DeleteTool, GetTool, ListTools, UpdateTool } from '../../../../../libs/domain/src/index.js';
import { Auth, DeveloperId } from '../../common/auth.guard.js';
import { Answers, AnswersNoContent, Operation, Problems, QueryOf, jsonSchemaOf } from '../../common/openapi.js';
import { pageOf } from '../../common/problem.schemas.js';
import { ConfirmQuerySchema, ListQuerySchema, encodeCursor, pageRequest } from '../../common/pagination.schemas.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';
import { presentTool } from './tools.presenter.js';
import { CreateToolSchema, ToolResponseSchema, UpdateToolSchema } from './tools.schemas.js';

@ApiTags('tools')
@ApiBearerAuth()
@Problems(401, 403, 404, 503)
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
  @Operation('createTool', 'Create an HTTP tool of the app')
  @ApiBody({ schema: jsonSchemaOf(CreateToolSchema) })
  @Answers(201, ToolResponseSchema, 'The tool')
  @Problems(400, 409, 413, 422)
  async create(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Body(new ZodValidationPipe(CreateToolSchema)) body: z.output<typeof CreateToolSchema>,
  ) {
    return presentTool(await this.createTool.execute(developerId, appId, body));
  }

  @Get()
  @Operation('listTools', "List the app's HTTP tools")
  @QueryOf(ListQuerySchema)
  @Answers(200, pageOf(ToolResponseSchema), 'A page of tools')
  @Problems(422)
  async list(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Query(new ZodValidationPipe(ListQuerySchema)) query: z.output<typeof ListQuerySchema>,
  ) {
    const page = await this.listTools.execute(developerId, appId, pageRequest(query));
    return { data: page.items.map(presentTool), next_cursor: encodeCursor(page.nextAfter) };
  }

  @Get(':tool_id')
  @Operation('getTool', 'Read a tool')
  @Answers(200, ToolResponseSchema, 'The tool')
  async get(@DeveloperId() developerId: string, @Param('app_id') appId: string, @Param('tool_id') toolId: string) {
    return presentTool(await this.getTool.execute(developerId, appId, toolId));
  }

  @Patch(':tool_id')
  @Operation('updateTool', 'Change a tool')
  @ApiBody({ schema: jsonSchemaOf(UpdateToolSchema) })
  @Answers(200, ToolResponseSchema, 'The tool as changed')
  @Problems(400, 409, 413, 422)
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
  @Operation('deleteTool', 'Delete a tool', 'Destructive: needs ?confirm=true.')
  @QueryOf(ConfirmQuerySchema)
  @AnswersNoContent('Deleted')
  @Problems(422, 428)
  async delete(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Param('tool_id') toolId: string,
    @Query(new ZodValidationPipe(ConfirmQuerySchema)) query: z.output<typeof ConfirmQuerySchema>,
  ): Promise<void> {
    await this.deleteTool.execute(developerId, appId, toolId, query.confirm);
  }
}
