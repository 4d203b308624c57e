import { Injectable } from '@nestjs/common';
import type { Prisma, ToolInstance } from './generated/client.js';
import { type Page, type PageRequest, toPage } from './page.js';
import { DatabasePool, type Statement } from './database-pool.js';
import { PrismaService } from './prisma.service.js';
import { INSTANCE_WITH_TOOL_SELECT, type InstanceWithTool, instanceWithTool } from './sql-columns.js';

export type ToolInstanceRow = ToolInstance;
export type AgentToolInstance = InstanceWithTool;
export type NewToolInstance = Omit<Prisma.ToolInstanceUncheckedCreateInput, 'projectId' | 'agentId'>;

/** Where an instance's installation, app and HTTP tool come from (the joins INSTANCE_WITH_TOOL_SELECT reads). */
const INSTANCE_WITH_TOOL_FROM = `FROM tool_instances i
    JOIN installations n ON n.id = i.installation_id
    JOIN apps na ON na.id = n.app_id
    LEFT JOIN http_tools h ON h.id = i.http_tool_id`;

/** An instance with its installation, app and HTTP tool in one statement (a call's first attempt builds its body from it). */
const GET_WITH_TOOL: Statement = {
  name: 'tool_instances_get_with_tool',
  text: `SELECT ${INSTANCE_WITH_TOOL_SELECT}
    ${INSTANCE_WITH_TOOL_FROM}
    WHERE i.id = $1`,
};

/** Every instance of agent $2 of project $1 with its tool, in the order they were added. */
const LIST_FOR_AGENT: Statement = {
  name: 'tool_instances_list_for_agent',
  text: `SELECT ${INSTANCE_WITH_TOOL_SELECT}
    ${INSTANCE_WITH_TOOL_FROM}
    WHERE i.project_id = $1 AND i.agent_id = $2
    ORDER BY i.created_at, i.id`,
};

/** Tool instances: the tools projects gave their agents, looked up and written by project and agent first. */
@Injectable()
export class ToolInstancesRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DatabasePool,
  ) {}

  async create(projectId: string, agentId: string, instance: NewToolInstance): Promise<ToolInstance> {
    return this.prisma.toolInstance.create({ data: { ...instance, projectId, agentId } });
  }

  async list(projectId: string, agentId: string, page: PageRequest): Promise<Page<ToolInstance>> {
    const rows = await this.prisma.toolInstance.findMany({
      where: { projectId, agentId, ...(page.after ? { id: { gt: page.after } } : {}) },
      orderBy: { id: 'asc' },
      take: page.limit + 1,
    });
    return toPage(rows, page.limit);
  }

  async get(projectId: string, agentId: string, instanceId: string): Promise<ToolInstance | null> {
    return this.prisma.toolInstance.findFirst({ where: { id: instanceId, projectId, agentId } });
  }

  /** Updates an instance of the project's agent; null when there is none. */
  async update(
    projectId: string,
    agentId: string,
    instanceId: string,
    data: Prisma.ToolInstanceUncheckedUpdateManyInput,
  ): Promise<ToolInstance | null> {
    const { count } = await this.prisma.toolInstance.updateMany({
      where: { id: instanceId, projectId, agentId },
      data,
    });
    return count === 0 ? null : this.get(projectId, agentId, instanceId);
  }

  /** Deletes an instance of the project's agent; false when there was none. */
  async delete(projectId: string, agentId: string, instanceId: string): Promise<boolean> {
    const { count } = await this.prisma.toolInstance.deleteMany({ where: { id: instanceId, projectId, agentId } });
    return count > 0;
  }

  /** Every instance of an agent, in the order they were added (which decides name collisions). */
  async listForAgent(projectId: string, agentId: string): Promise<AgentToolInstance[]> {
    // On the pool: an agent's first call (a toolset cache miss) does not load Prisma's query engine.
    const rows = await this.db.rows<Record<string, unknown>>(LIST_FOR_AGENT, [projectId, agentId]);
    return rows.map(instanceWithTool).filter((instance) => instance !== null);
  }

  async getWithTool(instanceId: string): Promise<AgentToolInstance | null> {
    const [row] = await this.db.rows<Record<string, unknown>>(GET_WITH_TOOL, [instanceId]);
    return row ? instanceWithTool(row) : null;
  }

  async countForAgentTool(
    projectId: string,
    agentId: string,
    installationId: string,
    toolName: string,
  ): Promise<number> {
    return this.prisma.toolInstance.count({ where: { projectId, agentId, installationId, toolName } });
  }

  /** The configured parameters of every instance of an HTTP tool (to check them against its new parameters). */
  async configuredForHttpTool(httpToolId: string): Promise<Pick<ToolInstance, 'id' | 'configuredParameters'>[]> {
    return this.prisma.toolInstance.findMany({
      where: { httpToolId },
      select: { id: true, configuredParameters: true },
      orderBy: { id: 'asc' },
    });
  }

  /** Records, per instance of the HTTP tool, why its configuration no longer fits (null: it fits). */
  async setConfigurationProblems(
    httpToolId: string,
    problems: { id: string; problem: string | null }[],
  ): Promise<void> {
    if (problems.length === 0) return;
    await this.prisma.$transaction(
      problems.map(({ id, problem }) =>
        this.prisma.toolInstance.updateMany({ where: { id, httpToolId }, data: { configurationProblem: problem } }),
      ),
    );
  }

  async countForHttpTool(httpToolId: string): Promise<number> {
    return this.prisma.toolInstance.count({ where: { httpToolId } });
  }

  /** The largest number of instances of this tool that one agent (of one project: agent ids are the project's) has. */
  async maxPerAgentForHttpTool(httpToolId: string): Promise<number> {
    const groups = await this.prisma.toolInstance.groupBy({
      by: ['projectId', 'agentId'],
      where: { httpToolId },
      _count: { _all: true },
      orderBy: { _count: { agentId: 'desc' } },
      take: 1,
    });
    return groups[0]?._count._all ?? 0;
  }

  /** The agents that have at least one tool of the app. */
  async agentsOfApp(appId: string): Promise<{ projectId: string; agentId: string }[]> {
    return this.prisma.toolInstance.findMany({
      where: { appId },
      select: { projectId: true, agentId: true },
      distinct: ['projectId', 'agentId'],
    });
  }

  async agentsOfInstallation(installationId: string): Promise<{ projectId: string; agentId: string }[]> {
    return this.prisma.toolInstance.findMany({
      where: { installationId },
      select: { projectId: true, agentId: true },
      distinct: ['projectId', 'agentId'],
    });
  }
}
