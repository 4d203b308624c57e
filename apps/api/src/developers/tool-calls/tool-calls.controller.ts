import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Answers, Operation, Problems, QueryOf } from '../../common/openapi.js';
import { pageOf } from '../../common/problem.schemas.js';
import type { z } from 'zod';
import { GetAppToolCall, ListAppToolCalls, ReplayToolCall } from '../../../../../libs/domain/src/index.js';
import { Auth, DeveloperId } from '../../common/auth.guard.js';
import { encodeCursor, pageRequest } from '../../common/pagination.schemas.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';
import { presentCall, presentCallWithAttempts } from './tool-calls.presenter.js';

import {
  ToolCallResponseSchema,
  ToolCallWithAttemptsResponseSchema,
  ToolCallsQuerySchema,
} from './tool-calls.schemas.js';

@ApiTags('tool calls')
@ApiBearerAuth()
@Problems(401, 403, 404, 503)
@Auth('developer')
@Controller('v1/apps/:app_id/tool-calls')
export class ToolCallsController {
  constructor(
    private readonly listAppToolCalls: ListAppToolCalls,
    private readonly getAppToolCall: GetAppToolCall,
    private readonly replayToolCall: ReplayToolCall,
  ) {}

  @Get()
  @Operation('listAppToolCalls', "List the calls of the app's tools, newest first")
  @QueryOf(ToolCallsQuerySchema)
  @Answers(200, pageOf(ToolCallResponseSchema), 'A page of calls')
  @Problems(422)
  async list(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Query(new ZodValidationPipe(ToolCallsQuerySchema)) query: z.output<typeof ToolCallsQuerySchema>,
  ) {
    const page = await this.listAppToolCalls.execute(
      developerId,
      appId,
      { status: query.status, toolName: query.tool_name, agentId: query.agent_id },
      pageRequest(query),
    );
    return { data: page.items.map(presentCall), next_cursor: encodeCursor(page.nextAfter) };
  }

  @Get(':call_id')
  @Operation('getAppToolCall', 'Read a call with its delivery attempts')
  @Answers(200, ToolCallWithAttemptsResponseSchema, 'The call')
  async get(@DeveloperId() developerId: string, @Param('app_id') appId: string, @Param('call_id') callId: string) {
    return presentCallWithAttempts(await this.getAppToolCall.execute(developerId, appId, callId));
  }

  @Post(':call_id/replay')
  @HttpCode(202)
  @Operation('replayToolCall', 'Deliver a finished call again, as a new round')
  @Answers(202, ToolCallWithAttemptsResponseSchema, 'Queued again')
  @Problems(409)
  async replay(@DeveloperId() developerId: string, @Param('app_id') appId: string, @Param('call_id') callId: string) {
    return presentCallWithAttempts(await this.replayToolCall.execute(developerId, appId, callId));
  }
}
