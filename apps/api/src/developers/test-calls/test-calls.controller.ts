import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { TestToolCall } from '../../../../../libs/domain/src/index.js';
import { presentCallAnswer } from '../../agents/agents.presenter.js';
import { CallAnswerSchema } from '../../agents/agents.schemas.js';
import { Auth, DeveloperId } from '../../common/auth.guard.js';
import { Answers, Operation, Problems, jsonSchemaOf } from '../../common/openapi.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';
import { TestCallSchema } from './test-calls.schemas.js';

@ApiTags('tool calls')
@ApiBearerAuth()
@Problems(401, 403, 404, 503)
@Auth('developer')
@Controller('v1/apps/:app_id/tools/:tool_name/test-calls')
export class TestCallsController {
  constructor(private readonly testToolCall: TestToolCall) {}

  @Post()
  @HttpCode(200)
  @Operation(
    'testToolCall',
    'Try a tool of the app as its developer',
    'One instant attempt through the real path, whatever the tool mode; agent_id and dialog_id are "test".',
  )
  @Answers(200, CallAnswerSchema, 'The attempt made: its outcome, as an instant call answers')
  @Problems(400, 413, 422, 429)
  @ApiBody({ schema: jsonSchemaOf(TestCallSchema) })
  async create(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Param('tool_name') toolName: string,
    @Body(new ZodValidationPipe(TestCallSchema)) body: z.output<typeof TestCallSchema>,
  ) {
    return presentCallAnswer(await this.testToolCall.execute(developerId, appId, toolName, body));
  }
}
