import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  AcceptToolCall, CancelToolCall, GetAgentToolCall, IdempotentRequests, ListAgentTools, presentAgentTool,
} from '../../../../libs/domain/src/index.js';
import { AgentAuth, type AgentIdentity, Auth } from '../common/auth.guard.js';
import { jsonSchemaOf } from '../common/openapi.js';
import { ZodValidationPipe } from '../common/zod-validation.pipe.js';
import { presentAgentCall, presentCallOutcome, presentReplayOfLargeOutcome } from './agents.presenter.js';
import { IdempotencyHeaderSchema, ToolCallSchema, WaitQuerySchema } from './agents.schemas.js';

const idempotencyHeaderPipe = new ZodValidationPipe(IdempotencyHeaderSchema);

@ApiTags('agents')
@ApiBearerAuth()
@Auth('agent')
@Controller('v1/agents/:agent_id')
export class AgentsController {
  constructor(
    private readonly listAgentTools: ListAgentTools,
    private readonly acceptToolCall: AcceptToolCall,
    private readonly getAgentToolCall: GetAgentToolCall,
    private readonly cancelToolCall: CancelToolCall,
    private readonly idempotentRequests: IdempotentRequests,
  ) {}

  @Get('tools')
  async tools(@AgentAuth() agent: AgentIdentity) {
    return { data: (await this.listAgentTools.execute(agent)).map(presentAgentTool) };
  }

  /** instant → 200 with the outcome; wait and background → 202 queued. */
  @Post('tool-calls')
  @ApiBody({ schema: jsonSchemaOf(ToolCallSchema) })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Repeats within 24 h get the first answer; nothing is delivered again' })
  async call(
    @AgentAuth() agent: AgentIdentity,
    @Body(new ZodValidationPipe(ToolCallSchema)) body: z.output<typeof ToolCallSchema>,
    @Headers('idempotency-key') idempotencyKeyHeader: string | undefined,
    @Res({ passthrough: true }) response: FastifyReply,
  ) {
    const { 'Idempotency-Key': idempotencyKey } = idempotencyHeaderPipe.transform({ 'Idempotency-Key': idempotencyKeyHeader });
    const accept = async () => {
      const call = await this.acceptToolCall.execute(agent, body);
      return {
        status: call.executionMode === 'instant' ? 200 : 202,
        body: presentCallOutcome(call),
        reduced: () => presentReplayOfLargeOutcome(call),
      };
    };
    const answer = idempotencyKey
      ? await this.idempotentRequests.run(agent, idempotencyKey, body, accept)
      : { ...(await accept()), replayed: false };
    response.code(answer.status);
    if (answer.replayed) response.header('Idempotent-Replayed', 'true');
    return answer.body;
  }

  @Get('tool-calls/:call_id')
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
  async cancel(@AgentAuth() agent: AgentIdentity, @Param('call_id') callId: string) {
    return presentAgentCall(await this.cancelToolCall.execute(agent, callId));
  }
}
