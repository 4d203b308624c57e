import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import {
  CreateApp, DeleteApp, ExchangeLaunchCode, FindOwnedApp, ListApps, PutAgentToolsSettings, RotateWebhookSecret, UpdateApp, agentToolsSettingsOf,
} from '../../../../../libs/domain/src/index.js';
import { Auth, DeveloperId } from '../../common/auth.guard.js';
import { jsonSchemaOf } from '../../common/openapi.js';
import { ConfirmQuerySchema, ListQuerySchema, encodeCursor, pageRequest } from '../../common/pagination.schemas.js';
import { ZodValidationPipe } from '../../common/zod-validation.pipe.js';
import {
  AgentToolsResponseSchema, AppResponseSchema, CreateAppSchema, CreatedAppResponseSchema, PutAgentToolsSchema,
  RotatedSecretResponseSchema, UpdateAppSchema,
} from './apps.schemas.js';
import { presentApp } from './apps.presenter.js';
import { presentLaunchContext } from '../../projects/projects.presenter.js';
import { ExchangeLaunchCodeSchema } from '../../projects/projects.schemas.js';

@ApiTags('apps')
@ApiBearerAuth()
@Auth('developer')
@Controller('v1/apps')
export class AppsController {
  constructor(
    private readonly createApp: CreateApp,
    private readonly listApps: ListApps,
    private readonly findOwnedApp: FindOwnedApp,
    private readonly updateApp: UpdateApp,
    private readonly deleteApp: DeleteApp,
    private readonly rotateWebhookSecret: RotateWebhookSecret,
    private readonly putAgentToolsSettings: PutAgentToolsSettings,
    private readonly exchangeLaunchCode: ExchangeLaunchCode,
  ) {}

  @Post()
  @ApiBody({ schema: jsonSchemaOf(CreateAppSchema) })
  @ApiCreatedResponse({ schema: jsonSchemaOf(CreatedAppResponseSchema, 'output') })
  async create(@DeveloperId() developerId: string, @Body(new ZodValidationPipe(CreateAppSchema)) body: z.output<typeof CreateAppSchema>) {
    const { app, webhookSecret } = await this.createApp.execute(developerId, body);
    return { ...presentApp(app), webhook_secret: webhookSecret };
  }

  @Get()
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' } })
  async list(@DeveloperId() developerId: string, @Query(new ZodValidationPipe(ListQuerySchema)) query: z.output<typeof ListQuerySchema>) {
    const page = await this.listApps.execute(developerId, pageRequest(query));
    return { data: page.items.map(presentApp), next_cursor: encodeCursor(page.nextAfter) };
  }

  @Get(':app_id')
  @ApiOkResponse({ schema: jsonSchemaOf(AppResponseSchema, 'output') })
  async get(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    return presentApp(await this.findOwnedApp.execute(developerId, appId));
  }

  @Patch(':app_id')
  @ApiBody({ schema: jsonSchemaOf(UpdateAppSchema) })
  @ApiOkResponse({ schema: jsonSchemaOf(AppResponseSchema, 'output') })
  async update(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Body(new ZodValidationPipe(UpdateAppSchema)) body: z.output<typeof UpdateAppSchema>,
  ) {
    return presentApp(await this.updateApp.execute(developerId, appId, body));
  }

  @Delete(':app_id')
  @HttpCode(204)
  @ApiQuery({ name: 'confirm', required: true, schema: { type: 'boolean', enum: [true] } })
  async delete(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Query(new ZodValidationPipe(ConfirmQuerySchema)) query: z.output<typeof ConfirmQuerySchema>,
  ): Promise<void> {
    await this.deleteApp.execute(developerId, appId, query.confirm);
  }

  @Post(':app_id/webhook-secret/rotate')
  @HttpCode(200)
  @ApiOkResponse({ schema: jsonSchemaOf(RotatedSecretResponseSchema, 'output') })
  async rotateSecret(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    const { webhookSecret, previousValidUntil } = await this.rotateWebhookSecret.execute(developerId, appId);
    return { webhook_secret: webhookSecret, previous_valid_until: previousValidUntil.toISOString() };
  }

  @Get(':app_id/agent-tools')
  @ApiOkResponse({ schema: jsonSchemaOf(AgentToolsResponseSchema, 'output') })
  async getAgentTools(@DeveloperId() developerId: string, @Param('app_id') appId: string) {
    return agentToolsSettingsOf(await this.findOwnedApp.execute(developerId, appId));
  }

  @Put(':app_id/agent-tools')
  @ApiBody({ schema: jsonSchemaOf(PutAgentToolsSchema) })
  @ApiOkResponse({ schema: jsonSchemaOf(AgentToolsResponseSchema, 'output') })
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
  @ApiBody({ schema: jsonSchemaOf(ExchangeLaunchCodeSchema) })
  async exchange(
    @DeveloperId() developerId: string,
    @Param('app_id') appId: string,
    @Body(new ZodValidationPipe(ExchangeLaunchCodeSchema)) body: z.output<typeof ExchangeLaunchCodeSchema>,
  ) {
    return presentLaunchContext(await this.exchangeLaunchCode.execute(developerId, appId, body.launch_code));
  }
}
