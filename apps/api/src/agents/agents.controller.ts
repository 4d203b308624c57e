import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AcceptToolCall, CancelToolCall, GetAgentToolCall, ListAgentTools } from '../../../../libs/domain/src/index.js';
import { AgentAuth, type AgentIdentity, Auth } from '../common/auth.guard.js';
import { IdempotencyKeyHeader, IdempotentAnswers } from '../common/idempotent-answers.js';
import { Answers, Operation, Problems, QueryOf, jsonSchemaOf } from '../common/openapi.js';
import { ZodValidationPipe } from '../common/zod-validation.pipe.js';
import {
  callAnswerStatus,
  presentAgentCall,
  presentAgentTool,
  presentCallAnswer,
  presentReplayOfLargeAnswer,
} from './agents.presenter.js';
import {
  AgentCallResponseSchema,
  AgentToolsResponseSchema,
  CallAnswerSchema,
  ToolCallSchema,
  WaitQuerySchema,
} from './agents.schemas.js';

@ApiTags('agents')
@ApiBearerAuth()
@ApiParam({ name: 'agent_id', description: "The agent's id, as in its token", schema: { type: 'string' } })
@Problems(401, 403, 503)
@Auth('agent')
@Controller('v1/agents/:agent_id')
export class AgentsController {
  constructor(
    private readonly listAgentTools: ListAgentTools,
    private readonly acceptToolCall: AcceptToolCall,
    private readonly getAgentToolCall: GetAgentToolCall,
    private readonly cancelToolCall: CancelToolCall,
    private readonly idempotent: IdempotentAnswers,
  ) {}

  @Get('tools')
  @Operation('listAgentTools', "List the agent's tools")
  @Answers(200, AgentToolsResponseSchema, 'The tools, each with the JSON Schema of its arguments')
  async tools(@AgentAuth() agent: AgentIdentity) {
    return { data: (await this.listAgentTools.execute(agent)).map(presentAgentTool) };
  }

  /** 200 with the outcome of a finished (instant) call; 202 for a queued (wait, background) one. */
  @Post('tool-calls')
  @Operation('callTool', 'Call a tool', 'instant: 200 with the outcome; wait and background: 202 queued.')
  @Answers(200, CallAnswerSchema, 'An instant call finished: its outcome')
  @Answers(202, CallAnswerSchema, 'A wait or background call, queued')
  @Problems(400, 409, 413, 422, 429)
  @ApiBody({ schema: jsonSchemaOf(ToolCallSchema) })
  @IdempotencyKeyHeader()
  async call(
    @AgentAuth() agent: AgentIdentity,
    @Body(new ZodValidationPipe(ToolCallSchema)) body: z.output<typeof ToolCallSchema>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) response: FastifyReply,
  ) {
    return this.idempotent.answer(request, response, agent, body, {
      run: async () => {
        const call = await this.acceptToolCall.execute(agent, body);
        response.code(callAnswerStatus(call));
        return presentCallAnswer(call);
      },
      reduced: presentReplayOfLargeAnswer,
    });
  }

  @Get('tool-calls/:call_id')
  @Operation('getAgentToolCall', 'Read a call', '?wait=N holds the answer up to N seconds until the call finishes.')
  @QueryOf(WaitQuerySchema)
  @Answers(200, AgentCallResponseSchema, 'The call')
  @Problems(404, 422, 429)
  async get(
    @AgentAuth() agent: AgentIdentity,
    @Param('call_id') callId: string,
    @Query(new ZodValidationPipe(WaitQuerySchema)) query: z.output<typeof WaitQuerySchema>,
    @Req() request: FastifyRequest,
  ) {
    const disconnected = new AbortController();
    request.raw.once('close', () => disconnected.abort());
    return presentAgentCall(await this.getAgentToolCall.execute(agent, callId, query.wait * 1000, disconnected.signal));
  }

  @Post('tool-calls/:call_id/cancel')
  @HttpCode(200)
  @Operation('cancelToolCall', 'Cancel a call that has not finished')
  @Answers(200, AgentCallResponseSchema, 'The call, cancelled')
  @Problems(404, 409)
  async cancel(@AgentAuth() agent: AgentIdentity, @Param('call_id') callId: string) {
    return presentAgentCall(await this.cancelToolCall.execute(agent, callId));
  }
}
