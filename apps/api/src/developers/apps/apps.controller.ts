import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import {
  CreateApp,
  DeleteApp,
  ExchangeLaunchCode,
  FindOwnedApp,
  GetDeliveryLimits,
  ListApps,
  PutAgentToolsSettings,
  RotateWebhookSecret,
  UpdateApp,
  agentToolsSettingsOf,
} from '../../../../../libs/domain/src/index.js';
import { ENV, type Env } from '../../../../../libs/config/src/index.js';
import { Auth, DeveloperId } from '../../common/auth.guard.js';
import { Answers, AnswersNoContent, Operation, Problems, QueryOf, jsonSchemaOf } from '../../common/openapi.js';
import { pageOf } from '../../common/problem.schemas.js';
import { ConfirmQuerySchema, ListQuerySchema, encodeCursor, pageRequest } from '../../common/pagination.schemas.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';
import {
  AgentToolsResponseSchema,
  AppResponseSchema,
  CreateAppSchema,
  CreatedAppResponseSchema,
  DeliveryLimitsStatusResponseSchema,
  PutAgentToolsSchema,
  RotatedSecretResponseSchema,
  UpdateAppSchema,
} from './apps.schemas.js';
import { presentApp } from './apps.presenter.js';
import { presentLaunchContext } from '../../projects/projects.presenter.js';
import { ExchangeLaunchCodeSchema, LaunchContextResponseSchema } from '../../projects/projects.schemas.js';

@ApiTags('apps')
@ApiBearerAuth()
@Problems(401, 403, 503)
@Auth('developer')
@Controller('v1/apps')
export class AppsController {
  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly createApp: CreateApp,
    private readonly listApps: ListApps,
    private readonly findOwnedApp: FindOwnedApp,
    private readonly updateApp: UpdateApp,
    private readonly getDeliveryLimitsOf: GetDeliveryLimits,
    private readonly deleteApp: DeleteApp,
    private readonly rotateWebhookSecret: RotateWebhookSecret,
    private readonly putAgentToolsSettings: PutAgentToolsSettings,
    private readonly exchangeLaunchCode: ExchangeLaunchCode,
  ) {}

  @Post()
  @Operation('createApp', 'Create an app', 'Answers its webhook secret, shown this once.')
  @ApiBody({ schema: jsonSchemaOf(CreateAppSchema) })
  @Answers(201, CreatedAppResponseSchema, 'The app, with its webhook secret')
  @Problems(400, 409, 413, 422)
  async create(
    @DeveloperId() developerId: string,
    @Body(new ZodValidationPipe(CreateAppSchema)) body: z.output<typeof CreateAppSchema>,
  ) {
    const { app, webhookSecret } = await this.createApp.execute(developerId, body);
    return { ...presentApp(app, this.env.MCP_CALL_TIMEOUT_S), webhook_secret: webhookSecret };
  }

  @Get()
  @Operation('listApps', "List the developer's apps")
  @QueryOf(ListQuerySchema)
  @Answers(200, pageOf(AppResponseSchema), 'A page of apps')
  @Problems(422)
  async list(
    @DeveloperId() developerId: string,
    @Query(new ZodValidationPipe(ListQuerySchema)) query: z.output<typeof ListQuerySchema>,
  ) {
    const page = await this.listApps.execute(developerId, pageRequest(query));
    return {
      data: page.items.map((app) => presentApp(app, this.env.MCP_CALL_TIMEOUT_S)),
      next_cursor: encodeCursor(page.nextAfter),
    };
  }

  @Get(':app_id')
  @Operation('getApp', 'Read an app')
  @Answers(200, AppResponseSchema, 'The app')
  @Problems(404)
  async get(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    return presentApp(await this.findOwnedApp.execute(developerId, appId), this.env.MCP_CALL_TIMEOUT_S);
  }

  @Patch(':app_id')
  @Operation('updateApp', 'Change an app')
  @ApiBody({ schema: jsonSchemaOf(UpdateAppSchema) })
  @Answers(200, AppResponseSchema, 'The app as changed')
  @Problems(400, 404, 409, 413, 422)
  async update(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Body(new ZodValidationPipe(UpdateAppSchema)) body: z.output<typeof UpdateAppSchema>,
  ) {
    return presentApp(await this.updateApp.execute(developerId, appId, body), this.env.MCP_CALL_TIMEOUT_S);
  }

  @Get(':app_id/delivery-limits')
  @Operation(
    'getDeliveryLimits',
    "Read the app's delivery limits and when they last held a request back",
    'The limits are set with PATCH /v1/apps/{app_id} (delivery_limits).',
  )
  @Answers(200, DeliveryLimitsStatusResponseSchema, 'The limits (null: none) and when they last held one back')
  @Problems(404)
  getDeliveryLimits(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    return this.getDeliveryLimitsOf.execute(developerId, appId);
  }

  @Delete(':app_id')
  @HttpCode(204)
  @Operation('deleteApp', 'Delete an app', 'Destructive: needs ?confirm=true.')
  @QueryOf(ConfirmQuerySchema)
  @AnswersNoContent('Deleted')
  @Problems(404, 422, 428)
  async delete(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Query(new ZodValidationPipe(ConfirmQuerySchema)) query: z.output<typeof ConfirmQuerySchema>,
  ): Promise<void> {
    await this.deleteApp.execute(developerId, appId, query.confirm);
  }

  @Post(':app_id/webhook-secret/rotate')
  @HttpCode(200)
  @Operation('rotateWebhookSecret', "Rotate the app's webhook secret", 'The previous secret stays valid for 24 hours.')
  @Answers(200, RotatedSecretResponseSchema, 'The new secret, shown this once')
  @Problems(404, 409)
  async rotateSecret(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    const { webhookSecret, previousValidUntil } = await this.rotateWebhookSecret.execute(developerId, appId);
    return { webhook_secret: webhookSecret, previous_valid_until: previousValidUntil.toISOString() };
  }

  @Get(':app_id/agent-tools')
  @Operation('getAgentToolsSettings', "Read the app's agent-tools settings")
  @Answers(200, AgentToolsResponseSchema, 'The settings (never the MCP auth header value)')
  @Problems(404)
  async getAgentTools(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    const app = await this.findOwnedApp.execute(developerId, appId);
    return agentToolsSettingsOf(app, this.env.MCP_CALL_TIMEOUT_S);
  }

  @Put(':app_id/agent-tools')
  @Operation('putAgentToolsSettings', "Set the app's agent-tools settings", 'Enable it, in constructor or MCP mode.')
  @ApiBody({ schema: jsonSchemaOf(PutAgentToolsSchema) })
  @Answers(200, AgentToolsResponseSchema, 'The settings as saved')
  @Problems(400, 404, 409, 413, 422)
  async putAgentTools(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Body(new ZodValidationPipe(PutAgentToolsSchema)) body: z.output<typeof PutAgentToolsSchema>,
  ) {
    return this.putAgentToolsSettings.execute(developerId, appId, body);
  }

  /** The configurator page trades the launch code from its URL for the launch context: once, within 10 minutes. */
  @Post(':app_id/launch-codes/exchange')
  @HttpCode(200)
  @Operation('exchangeLaunchCode', 'Trade a launch code for its launch context')
  @ApiBody({ schema: jsonSchemaOf(ExchangeLaunchCodeSchema) })
  @Answers(200, LaunchContextResponseSchema, 'The launch context')
  @Problems(400, 404, 413, 422)
  async exchange(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Body(new ZodValidationPipe(ExchangeLaunchCodeSchema)) body: z.output<typeof ExchangeLaunchCodeSchema>,
  ) {
    return presentLaunchContext(await this.exchangeLaunchCode.execute(developerId, appId, body.launch_code));
  }
}
