import { isDeepStrictEqual } from 'node:util';
import type {
  ApprovedToolDefinition,
  HttpTool,
  McpToolSnapshot,
  Prisma,
  ToolKind,
} from '../../../persistence/src/index.js';

// Type aliases, not interfaces: they are JSON objects, stored as they are (jsonb).

/** What an agent sees of an HTTP tool: the texts it is described with (both languages) and its parameters. */
export type HttpToolDefinitionSeen = {
  name: string;
  description: { ru: string; en: string };
  agent_description: string | null;
  parameters: Prisma.JsonValue;
};

/** What an agent sees of an MCP tool: its title, description and input schema. */
export type McpToolDefinitionSeen = {
  name: string;
  title: string | null;
  description: string | null;
  input_schema: Prisma.JsonValue;
};

export type ToolDefinitionSeen = HttpToolDefinitionSeen | McpToolDefinitionSeen;

/** One tool of an app's current mode, with its definition as the developer (or the MCP server) has it now. */
export interface CurrentToolDefinition {
  kind: ToolKind;
  name: string;
  definition: ToolDefinitionSeen;
}

/** The definition of an HTTP tool (the same object the migration 20261206100000 builds in SQL). */
export function httpToolDefinition(row: HttpTool): HttpToolDefinitionSeen {
  return {
    name: row.name,
    description: { ru: row.descriptionRu, en: row.descriptionEn },
    agent_description: row.agentDescription,
    parameters: row.parameters,
  };
}

/** The definition of an MCP tool of the snapshot (the same object the migration 20261206100000 builds in SQL). */
export function mcpToolDefinition(snapshot: McpToolSnapshot): McpToolDefinitionSeen {
  return {
    name: snapshot.name,
    title: snapshot.title,
    description: snapshot.description,
    input_schema: snapshot.inputSchema,
  };
}

/** Whether two definitions show the agent the same thing (key order aside: jsonb does not keep it). */
export function sameDefinition(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}

/** The key of an approval among an agent's: its installation, kind and tool. */
export function approvalKey(installationId: string, kind: string, toolName: string): string {
  return `${installationId}\u0000${kind}\u0000${toolName}`;
}

/** The HTTP tool as its project approved it: the approved texts and parameters, the rest (handler, mode) as now. */
export function httpToolAsApproved(row: HttpTool, approval: ApprovedToolDefinition): HttpTool {
  const approved = approval.definition as HttpToolDefinitionSeen;
  return {
    ...row,
    descriptionRu: approved.description.ru,
    descriptionEn: approved.description.en,
    agentDescription: approved.agent_description,
    parameters: approved.parameters ?? [],
  };
}

/**
 * The MCP tool as its project approved it. It gets an id and a time of its own: compiled input schemas are cached by
 * the snapshot row's id and refresh time, which the current definition keeps.
 */
export function mcpToolAsApproved(snapshot: McpToolSnapshot, approval: ApprovedToolDefinition): McpToolSnapshot {
  const approved = approval.definition as McpToolDefinitionSeen;
  return {
    ...snapshot,
    id: `${snapshot.id}:approved:${approval.installationId}`,
    refreshedAt: approval.approvedAt,
    title: approved.title,
    description: approved.description,
    inputSchema: approved.input_schema ?? {},
  };
}
