import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import {
  DeleteEventEndpoint,
  GetEventEndpoint,
  PutEventEndpoint,
  RotateEventEndpointSecret,
} from '../../../../../libs/domain/src/index.js';
import { Auth } from '../../common/auth.guard.js';
import { Answers, AnswersNoContent, Operation, Problems, jsonSchemaOf } from '../../common/openapi.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';
import {
  EventEndpointResponseSchema,
  EventEndpointWithSecretResponseSchema,
  PutEventEndpointSchema,
  RotatedEventSecretResponseSchema,
} from './event-endpoint.schemas.js';

@ApiTags('projects')
@ApiBearerAuth()
@Problems(401, 403, 503)
@Auth('project')
@Controller('v1/projects/:project_id/event-endpoint')
export class EventEndpointController {
  constructor(
    private readonly putEventEndpoint: PutEventEndpoint,
    private readonly getEventEndpoint: GetEventEndpoint,
    private readonly rotateEventEndpointSecret: RotateEventEndpointSecret,
    private readonly deleteEventEndpoint: DeleteEventEndpoint,
  ) {}

  @Put()
  @HttpCode(200)
  @Operation(
    'putEventEndpoint',
    "Set the project's event endpoint",
    'It is told when a wait or background call of the project ends. Answers the secret that signs the events.',
  )
  @ApiBody({ schema: jsonSchemaOf(PutEventEndpointSchema) })
  @Answers(200, EventEndpointWithSecretResponseSchema, 'The endpoint, with its secret')
  @Problems(400, 404, 413, 422)
  put(
    @Param('project_id') projectId: string,
    @Body(new ZodValidationPipe(PutEventEndpointSchema)) body: z.output<typeof PutEventEndpointSchema>,
  ) {
    return this.putEventEndpoint.execute(projectId, body.url);
  }

  @Get()
  @Operation('getEventEndpoint', "Read the project's event endpoint")
  @Answers(200, EventEndpointResponseSchema, 'The endpoint (never its secret)')
  @Problems(404)
  get(@Param('project_id') projectId: string) {
    return this.getEventEndpoint.execute(projectId);
  }

  @Post('rotate-secret')
  @HttpCode(200)
  @Operation(
    'rotateEventEndpointSecret',
    "Rotate the event endpoint's secret",
    'The previous secret keeps signing for 24 hours.',
  )
  @Answers(200, RotatedEventSecretResponseSchema, 'The new secret, shown this once')
  @Problems(404, 409)
  async rotateSecret(@Param('project_id') projectId: string) {
    const { secret, previousValidUntil } = await this.rotateEventEndpointSecret.execute(projectId);
    return { secret, previous_valid_until: previousValidUntil.toISOString() };
  }

  @Delete()
  @HttpCode(204)
  @Operation('deleteEventEndpoint', "Remove the project's event endpoint", 'No more events are sent.')
  @AnswersNoContent('Removed')
  @Problems(404)
  async delete(@Param('project_id') projectId: string): Promise<void> {
    await this.deleteEventEndpoint.execute(projectId);
  }
}
