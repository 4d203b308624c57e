import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Answers, Operation, Problems, QueryOf } from '../../common/openapi.js';
import { pageOf } from '../../common/problem.schemas.js';
import type { z } from 'zod';
import { GetAppToolCall, ListAppToolCalls, ReplayToolCall } from '../../../../../libs/domain/src/index.js';
import type { ToolCall, ToolCallWithAttempts } from '../../../../../libs/persistence/src/index.js';
import { Auth, DeveloperId } from '../../common/auth.guard.js';
import { encodeCursor, pageRequest } from '../../common/pagination.schemas.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';

import {
  ToolCallResponseSchema,
  ToolCallWithAttemptsResponseSchema,
  ToolCallsQuerySchema,
} from './tool-calls.schemas.js';

/** A call as its app's developer sees it: never the webhook body (it carries private data). */
function presentCall(call: ToolCall) {
  return {
    id: call.id,
    event_id: call.eventId,
    status: call.status,
    tool_name: call.toolName,
    agent_tool_name: call.agentToolName,
    execution_mode: call.executionMode,
    retry_window: call.retryWindow,
    project_id: call.projectId,
    agent_id: call.agentId,
    installation_id: call.installationId,
    tool_instance_id: call.toolInstanceId,
    dialog_id: call.dialogId,
    lead_id: call.leadId,
    arguments: call.arguments,
    result: call.result,
    error: call.error,
    round: call.round,
    next_attempt_at: call.nextAttemptAt?.toISOString() ?? null,
    accepted_at: call.acceptedAt.toISOString(),
    finished_at: call.finishedAt?.toISOString() ?? null,
    test: call.test,
  };
}

function presentCallWithAttempts(call: ToolCallWithAttempts) {
  return {
    ...presentCall(call),
    attempts: call.attempts.map((a) => ({
      round: a.round,
      n: a.n,
      started_at: a.startedAt.toISOString(),
      duration_ms: a.durationMs,
      outcome: a.outcome,
      http_status: a.httpStatus,
      error: a.error,
      response_excerpt: a.responseExcerpt,
    })),
  };
}

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
