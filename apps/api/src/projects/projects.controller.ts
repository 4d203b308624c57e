import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import {
  ApproveInstallationChanges,
  CreateConfiguratorLaunch,
  CreateToolInstance,
  DeleteToolInstance,
  InstallApp,
  ListInstallableTools,
  ListInstallationChanges,
  ListInstallations,
  SetApproveChanges,
  ListToolInstances,
  UninstallApp,
  UpdateToolInstance,
} from '../../../../libs/domain/src/index.js';
import { Auth } from '../common/auth.guard.js';
import { Answers, AnswersNoContent, Operation, Problems, QueryOf, jsonSchemaOf } from '../common/openapi.js';
import { pageOf } from '../common/problem.schemas.js';
import { ConfirmQuerySchema, ListQuerySchema, encodeCursor, pageRequest } from '../common/pagination.schemas.js';
import { ZodValidationPipe } from '../common/zod-validation.pipe.js';
import {
  presentInstallableTool,
  presentInstallation,
  presentInstallationChanges,
  presentToolInstance,
} from './projects.presenter.js';
import {
  ApproveChangesSchema,
  ApprovedChangesResponseSchema,
  ConfiguratorLaunchResponseSchema,
  ConfiguratorLaunchSchema,
  CreateToolInstanceSchema,
  InstallAppSchema,
  InstallableToolsResponseSchema,
  InstallationChangesResponseSchema,
  InstallationResponseSchema,
  LanguageQuerySchema,
  ToolInstanceResponseSchema,
  UpdateInstallationSchema,
  UpdateToolInstanceSchema,
} from './projects.schemas.js';

@ApiTags('projects')
@ApiBearerAuth()
@Problems(401, 403, 503)
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
    private readonly setApproveChanges: SetApproveChanges,
    private readonly listInstallationChanges: ListInstallationChanges,
    private readonly approveInstallationChanges: ApproveInstallationChanges,
  ) {}

  @Post('installations')
  @Operation('installApp', 'Install an app in the project')
  @Answers(201, InstallationResponseSchema, 'The installation')
  @Problems(400, 404, 409, 413, 422)
  @ApiBody({ schema: jsonSchemaOf(InstallAppSchema) })
  async install(
    @Param('project_id') projectId: string,
    @Body(new ZodValidationPipe(InstallAppSchema)) body: z.output<typeof InstallAppSchema>,
  ) {
    return presentInstallation(await this.installApp.execute(projectId, body.app_id));
  }

  @Get('installations')
  @Operation('listInstallations', "List the project's installations")
  @QueryOf(ListQuerySchema)
  @Answers(200, pageOf(InstallationResponseSchema), 'A page of installations')
  @Problems(422)
  async installations(
    @Param('project_id') projectId: string,
    @Query(new ZodValidationPipe(ListQuerySchema)) query: z.output<typeof ListQuerySchema>,
  ) {
    const page = await this.listInstallations.execute(projectId, pageRequest(query));
    return { data: page.items.map(presentInstallation), next_cursor: encodeCursor(page.nextAfter) };
  }

  @Delete('installations/:installation_id')
  @HttpCode(204)
  @Operation('uninstallApp', 'Uninstall an app from the project', 'Destructive: needs ?confirm=true.')
  @QueryOf(ConfirmQuerySchema)
  @AnswersNoContent('Uninstalled')
  @Problems(404, 409, 422, 428)
  async uninstall(
    @Param('project_id') projectId: string,
    @Param('installation_id') installationId: string,
    @Query(new ZodValidationPipe(ConfirmQuerySchema)) query: z.output<typeof ConfirmQuerySchema>,
  ): Promise<void> {
    await this.uninstallApp.execute(projectId, installationId, query.confirm);
  }

  @Patch('installations/:installation_id')
  @Operation(
    'updateInstallation',
    'Choose how changed tool definitions reach the agents',
    "`ask` (the default): a change waits for the project's approval; `auto`: agents see it at once.",
  )
  @Answers(200, InstallationResponseSchema, 'The installation as changed')
  @Problems(400, 404, 413, 422)
  @ApiBody({ schema: jsonSchemaOf(UpdateInstallationSchema) })
  async updateInstallation(
    @Param('project_id') projectId: string,
    @Param('installation_id') installationId: string,
    @Body(new ZodValidationPipe(UpdateInstallationSchema)) body: z.output<typeof UpdateInstallationSchema>,
  ) {
    return presentInstallation(await this.setApproveChanges.execute(projectId, installationId, body.approve_changes));
  }

  @Get('installations/:installation_id/changes')
  @Operation('listInstallationChanges', 'List the tool changes that wait for the project’s approval')
  @Answers(200, InstallationChangesResponseSchema, 'Per tool, the approved and the proposed definition')
  @Problems(404)
  async changes(@Param('project_id') projectId: string, @Param('installation_id') installationId: string) {
    return presentInstallationChanges(await this.listInstallationChanges.execute(projectId, installationId));
  }

  @Post('installations/:installation_id/changes/approve')
  @HttpCode(200)
  @Operation(
    'approveInstallationChanges',
    'Approve pending tool changes',
    'The named tools, or all when `tools` is absent: the agents see the new definitions at once.',
  )
  @Answers(200, ApprovedChangesResponseSchema, 'What was approved, and the changes still pending')
  @Problems(400, 404, 413, 422)
  @ApiBody({ schema: jsonSchemaOf(ApproveChangesSchema) })
  async approve(
    @Param('project_id') projectId: string,
    @Param('installation_id') installationId: string,
    @Body(new ZodValidationPipe(ApproveChangesSchema)) body: z.output<typeof ApproveChangesSchema>,
  ) {
    const approved = await this.approveInstallationChanges.execute(projectId, installationId, body.tools);
    return { ...presentInstallationChanges(approved), approved: approved.approved };
  }

  @Get('installations/:installation_id/tools')
  @Operation('listInstallableTools', 'List the tools of an installed app the project can add')
  @QueryOf(LanguageQuerySchema)
  @Answers(200, InstallableToolsResponseSchema, 'The tools, texts in `lang`')
  @Problems(404, 422)
  async installableTools(
    @Param('project_id') projectId: string,
    @Param('installation_id') installationId: string,
    @Query(new ZodValidationPipe(LanguageQuerySchema)) query: z.output<typeof LanguageQuerySchema>,
  ) {
    return {
      data: (await this.listInstallableTools.execute(projectId, installationId, query.lang)).map(
        presentInstallableTool,
      ),
    };
  }

  @Post('agents/:agent_id/tool-instances')
  @Operation('createToolInstance', 'Give an agent a tool of an installed app')
  @Answers(201, ToolInstanceResponseSchema, 'The tool instance')
  @Problems(400, 404, 409, 413, 422)
  @ApiBody({ schema: jsonSchemaOf(CreateToolInstanceSchema) })
  async createInstance(
    @Param('project_id') projectId: string,
    @Param('agent_id') agentId: string,
    @Body(new ZodValidationPipe(CreateToolInstanceSchema)) body: z.output<typeof CreateToolInstanceSchema>,
  ) {
    return presentToolInstance(await this.createToolInstance.execute(projectId, agentId, body));
  }

  @Get('agents/:agent_id/tool-instances')
  @Operation('listToolInstances', "List an agent's tool instances")
  @QueryOf(ListQuerySchema)
  @Answers(200, pageOf(ToolInstanceResponseSchema), 'A page of tool instances')
  @Problems(422)
  async instances(
    @Param('project_id') projectId: string,
    @Param('agent_id') agentId: string,
    @Query(new ZodValidationPipe(ListQuerySchema)) query: z.output<typeof ListQuerySchema>,
  ) {
    const page = await this.listToolInstances.execute(projectId, agentId, pageRequest(query));
    return { data: page.items.map(presentToolInstance), next_cursor: encodeCursor(page.nextAfter) };
  }

  @Patch('agents/:agent_id/tool-instances/:instance_id')
  @Operation('updateToolInstance', 'Change a tool instance')
  @Answers(200, ToolInstanceResponseSchema, 'The tool instance as changed')
  @Problems(400, 404, 409, 413, 422)
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
  @Operation('deleteToolInstance', 'Take a tool instance from the agent')
  @AnswersNoContent('Deleted')
  @Problems(404, 409)
  async deleteInstance(
    @Param('project_id') projectId: string,
    @Param('agent_id') agentId: string,
    @Param('instance_id') instanceId: string,
  ): Promise<void> {
    await this.deleteToolInstance.execute(projectId, agentId, instanceId);
  }

  @Post('agents/:agent_id/configurator-launches')
  @Operation(
    'createConfiguratorLaunch',
    "Open the app's configurator page for a tool",
    'The page URL with a launch code, valid 10 minutes.',
  )
  @Answers(201, ConfiguratorLaunchResponseSchema, 'The launch')
  @Problems(400, 404, 409, 413, 422)
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
