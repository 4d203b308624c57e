import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import {
  CreateConfiguratorLaunch, CreateToolInstance, DeleteToolInstance, InstallApp, ListInstallableTools, ListInstallations, ListToolInstances,
  UninstallApp, UpdateToolInstance,
} from '../../../../libs/domain/src/index.js';
import { Auth } from '../common/auth.guard.js';
import { jsonSchemaOf } from '../common/openapi.js';
import { ConfirmQuerySchema, ListQuerySchema, encodeCursor, pageRequest } from '../common/pagination.schemas.js';
import { ZodValidationPipe } from '../common/zod-validation.pipe.js';
import { presentInstallation, presentToolInstance } from './projects.presenter.js';
import {
  ConfiguratorLaunchSchema, CreateToolInstanceSchema, InstallAppSchema, LanguageQuerySchema, UpdateToolInstanceSchema,
} from './projects.schemas.js';

@ApiTags('projects')
@ApiBearerAuth()
@Auth('project')
@Controller('v1/projects/:project_id')
export class ProjectsController {
  constructor(
    private readonly installApp: InstallApp,
    private readonly listInstallations: ListInstallations,
    private readonly uninstallApp: UninstallApp,
    private readonly listInstallableTools: ListInstallableTools,
    private readonly createToolInstance: CreateToolInstance,
    private readonly listToolInstances: ListToolInstances,
    private readonly updateToolInstance: UpdateToolInstance,
    private readonly deleteToolInstance: DeleteToolInstance,
    private readonly createConfiguratorLaunch: CreateConfiguratorLaunch,
  ) {}

  @Post('installations')
  @ApiBody({ schema: jsonSchemaOf(InstallAppSchema) })
  async install(@Param('project_id') projectId: string, @Body(new ZodValidationPipe(InstallAppSchema)) body: z.output<typeof InstallAppSchema>) {
    return presentInstallation(await this.installApp.execute(projectId, body.app_id));
  }

  @Get('installations')
  async installations(@Param('project_id') projectId: string, @Query(new ZodValidationPipe(ListQuerySchema)) query: z.output<typeof ListQuerySchema>) {
    const page = await this.listInstallations.execute(projectId, pageRequest(query));
    return { data: page.items.map(presentInstallation), next_cursor: encodeCursor(page.nextAfter) };
  }

  @Delete('installations/:installation_id')
  @HttpCode(204)
  async uninstall(
    @Param('project_id') projectId: string,
    @Param('installation_id') installationId: string,
    @Query(new ZodValidationPipe(ConfirmQuerySchema)) query: z.output<typeof ConfirmQuerySchema>,
  ): Promise<void> {
    await this.uninstallApp.execute(projectId, installationId, query.confirm);
  }

  @Get('installations/:installation_id/tools')
  async installableTools(
    @Param('project_id') projectId: string,
    @Param('installation_id') installationId: string,
    @Query(new ZodValidationPipe(LanguageQuerySchema)) query: z.output<typeof LanguageQuerySchema>,
  ) {
    return { data: await this.listInstallableTools.execute(projectId, installationId, query.lang) };
  }

  @Post('agents/:agent_id/tool-instances')
  @ApiBody({ schema: jsonSchemaOf(CreateToolInstanceSchema) })
  async createInstance(
    @Param('project_id') projectId: string,
    @Param('agent_id') agentId: string,
    @Body(new ZodValidationPipe(CreateToolInstanceSchema)) body: z.output<typeof CreateToolInstanceSchema>,
  ) {
    return presentToolInstance(await this.createToolInstance.execute(projectId, agentId, body));
  }

  @Get('agents/:agent_id/tool-instances')
  async instances(
    @Param('project_id') projectId: string,
    @Param('agent_id') agentId: string,
    @Query(new ZodValidationPipe(ListQuerySchema)) query: z.output<typeof ListQuerySchema>,
  ) {
    const page = await this.listToolInstances.execute(projectId, agentId, pageRequest(query));
    return { data: page.items.map(presentToolInstance), next_cursor: encodeCursor(page.nextAfter) };
  }

  @Patch('agents/:agent_id/tool-instances/:instance_id')
  @ApiBody({ schema: jsonSchemaOf(UpdateToolInstanceSchema) })
  async updateInstance(
    @Param('project_id') projectId: string,
    @Param('agent_id') agentId: string,
    @Param('instance_id') instanceId: string,
    @Body(new ZodValidationPipe(UpdateToolInstanceSchema)) body: z.output<typeof UpdateToolInstanceSchema>,
  ) {
    return presentToolInstance(await this.updateToolInstance.execute(projectId, agentId, instanceId, body));
  }

  @Delete('agents/:agent_id/tool-instances/:instance_id')
  @HttpCode(204)
  async deleteInstance(@Param('project_id') projectId: string, @Param('agent_id') agentId: string, @Param('instance_id') instanceId: string): Promise<void> {
    await this.deleteToolInstance.execute(projectId, agentId, instanceId);
  }

  @Post('agents/:agent_id/configurator-launches')
  @ApiBody({ schema: jsonSchemaOf(ConfiguratorLaunchSchema) })
  async launchConfigurator(
    @Param('project_id') projectId: string,
    @Param('agent_id') agentId: string,
    @Body(new ZodValidationPipe(ConfiguratorLaunchSchema)) body: z.output<typeof ConfiguratorLaunchSchema>,
  ) {
    const launch = await this.createConfiguratorLaunch.execute(projectId, agentId, body);
    return { ...launch, expires_at: launch.expires_at.toISOString() };
  }
}
