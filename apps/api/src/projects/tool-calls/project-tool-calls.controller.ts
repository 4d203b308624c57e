import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { GetProjectToolCall, ListProjectToolCalls } from '../../../../../libs/domain/src/index.js';
import { Auth } from '../../common/auth.guard.js';
import { Answers, Operation, Problems, QueryOf } from '../../common/openapi.js';
import { encodeCursor, pageRequest } from '../../common/pagination.schemas.js';
import { pageOf } from '../../common/problem.schemas.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';
import { presentCall } from '../../developers/tool-calls/tool-calls.presenter.js';
import { ToolCallResponseSchema } from '../../developers/tool-calls/tool-calls.schemas.js';
import { presentProjectCall } from './project-tool-calls.presenter.js';
import { ProjectToolCallResponseSchema, ProjectToolCallsQuerySchema } from './project-tool-calls.schemas.js';

@ApiTags('projects')
@ApiBearerAuth()
@Problems(401, 403, 404, 503)
@Auth('project')
@Controller('v1/projects/:project_id/tool-calls')
export class ProjectToolCallsController {
  constructor(
    private readonly listProjectToolCalls: ListProjectToolCalls,
    private readonly getProjectToolCall: GetProjectToolCall,
  ) {}

  @Get()
  @Operation('listProjectToolCalls', "List the calls of the project's agents, newest first")
  @QueryOf(ProjectToolCallsQuerySchema)
  @Answers(200, pageOf(ToolCallResponseSchema), 'A page of calls')
  @Problems(422)
  async list(
    @Param('project_id') projectId: string,
    @Query(new ZodValidationPipe(ProjectToolCallsQuerySchema)) query: z.output<typeof ProjectToolCallsQuerySchema>,
  ) {
    const filters = {
      agentId: query.agent_id,
      dialogId: query.dialog_id,
      agentToolName: query.tool,
      status: query.status,
    };
    const page = await this.listProjectToolCalls.execute(projectId, filters, pageRequest(query));
    return { data: page.items.map(presentCall), next_cursor: encodeCursor(page.nextAfter) };
  }

  @Get(':call_id')
  @Operation('getProjectToolCall', 'Read a call of the project with every attempt and the events sent for it')
  @Answers(200, ProjectToolCallResponseSchema, 'The call')
  async get(@Param('project_id') projectId: string, @Param('call_id') callId: string) {
    return presentProjectCall(await this.getProjectToolCall.execute(projectId, callId));
  }
}
