import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { GetProjectLimits, PutProjectLimits } from '../../../../../libs/domain/src/index.js';
import { Auth } from '../../common/auth.guard.js';
import { Answers, Operation, Problems, jsonSchemaOf } from '../../common/openapi.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';
import { ProjectLimitsResponseSchema, PutProjectLimitsSchema } from './project-limits.schemas.js';

@ApiTags('projects')
@ApiBearerAuth()
@Problems(401, 403, 503)
@Auth('project')
@Controller('v1/projects/:project_id/limits')
export class ProjectLimitsController {
  constructor(
    private readonly getProjectLimits: GetProjectLimits,
    private readonly putProjectLimits: PutProjectLimits,
  ) {}

  @Put()
  @HttpCode(200)
  @Operation(
    'putProjectLimits',
    "Set the project's call quotas",
    'Calls accepted per agent and per project in a sliding minute, over REST and MCP and every API replica; a call ' +
      'over a quota answers 429 with Retry-After. Replaces both; null (or omitted) falls back to the default.',
  )
  @ApiBody({ schema: jsonSchemaOf(PutProjectLimitsSchema) })
  @Answers(200, ProjectLimitsResponseSchema, 'The quotas in force')
  @Problems(400, 413, 422)
  put(
    @Param('project_id') projectId: string,
    @Body(new ZodValidationPipe(PutProjectLimitsSchema)) body: z.output<typeof PutProjectLimitsSchema>,
  ) {
    return this.putProjectLimits.execute(projectId, body);
  }

  @Get()
  @Operation('getProjectLimits', "Read the project's call quotas in force", "The project's own, else the defaults.")
  @Answers(200, ProjectLimitsResponseSchema, 'The quotas in force')
  get(@Param('project_id') projectId: string) {
    return this.getProjectLimits.execute(projectId);
  }
}
