import { Injectable } from '@nestjs/common';
import type { ApprovedToolDefinition, Prisma } from './generated/client.js';
import type { ToolKind } from './call-states.js';
import { DatabasePool, type Statement } from './database-pool.js';
import { PrismaService } from './prisma.service.js';

/** Per tool of kind $2 of app $1: each definition its installations asking for approval run, and how many run it. */
const COUNTS_FOR_APP: Statement = {
  name: 'approved_tool_definitions_counts_for_app',
  text: `SELECT d.tool_name AS "toolName", d.definition, count(*)::int AS installations
    FROM approved_tool_definitions d JOIN installations n ON n.id = d.installation_id
    WHERE n.app_id = $1 AND d.tool_kind = $2 AND n.approve_changes = 'ask'
    GROUP BY d.tool_name, d.definition`,
};

/** One tool's definition as a project approves it. */
export interface ToolDefinitionApproval {
  toolKind: ToolKind;
  toolName: string;
  definition: Prisma.InputJsonValue;
}

/** A definition some installations of an app approved, and how many. */
export interface ApprovedDefinitionCount {
  toolName: string;
  definition: Prisma.JsonValue;
  installations: number;
}

/** What each installation's agents see of its app's tools, as its project approved them (decision 032). */
@Injectable()
export class ApprovedToolDefinitionsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DatabasePool,
  ) {}

  /** The approved definitions of several installations at once (an agent's tools come from many). */
  async listForInstallations(installationIds: string[]): Promise<ApprovedToolDefinition[]> {
    if (installationIds.length === 0) return [];
    return this.prisma.approvedToolDefinition.findMany({ where: { installationId: { in: installationIds } } });
  }

  /** Approves these definitions for the installation, replacing what it had approved of the same tools. */
  async approve(installationId: string, approvals: ToolDefinitionApproval[], approvedAt = new Date()): Promise<void> {
    if (approvals.length === 0) return;
    await this.prisma.$transaction(
      approvals.map(({ toolKind, toolName, definition }) =>
        this.prisma.approvedToolDefinition.upsert({
          where: { installationId_toolKind_toolName: { installationId, toolKind, toolName } },
          create: { installationId, toolKind, toolName, definition, approvedAt },
          update: { definition, approvedAt },
        }),
      ),
    );
  }

  /** Approves a tool's definition for the installation unless one is approved already. */
  async approveIfNone(installationId: string, approval: ToolDefinitionApproval): Promise<void> {
    await this.prisma.approvedToolDefinition.createMany({
      data: [{ installationId, ...approval }],
      skipDuplicates: true,
    });
  }

  /**
   * The distinct definitions of an app's tools (of one kind) that its installations asking for approval run, each
   * with how many run it: few rows (one per version still in use), however many installations there are.
   */
  async countsForApp(appId: string, toolKind: ToolKind): Promise<ApprovedDefinitionCount[]> {
    return this.db.rows<ApprovedDefinitionCount>(COUNTS_FOR_APP, [appId, toolKind]);
  }
}
