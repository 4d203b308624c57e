import type { AgentToolInstance, ApprovedToolDefinition, McpToolSnapshot } from '../../../persistence/src/index.js';
import {
  approvalKey,
  httpToolAsApproved,
  httpToolDefinition,
  mcpToolAsApproved,
  mcpToolDefinition,
  sameDefinition,
} from '../approvals/tool-definition.js';
import {
  type EffectiveParameter,
  type ConfiguredParameter,
  effectiveParameters,
} from '../calls/accepting/tool-arguments.js';
import { instanceStatus } from '../instances/tool-instance.js';
import { agentFacingBaseName, resolveAgentFacingNames } from '../naming.js';
import { httpToolFromRow, type HttpToolRecord } from '../tools/http-tool-record.js';

export interface AgentTool {
  /** The agent-facing name, unique among the agent's tools. */
  name: string;
  instance: AgentToolInstance;
  /** The HTTP tool behind the instance (null for an MCP tool). */
  tool: HttpToolRecord | null;
  /** The MCP tool behind the instance, from the app's last snapshot (null for an HTTP tool). */
  mcp: McpToolSnapshot | null;
  description: string;
  parameters: EffectiveParameter[];
  /** Why a call is refused now (409), or null when the tool can be called. */
  refusal: string | null;
  /** The tool's definition changed since its project approved it: `tool`/`mcp` show the approved one (decision 032). */
  changePending: boolean;
}

/**
 * An agent's tools, named in the order they were added: names stay stable when a tool is
 * disabled or its app switches mode; only callable tools are shown to the model. Each tool is
 * shown and checked as its project approved it (`approvals` by `approvalKey`), unless its
 * installation approves changes automatically.
 */
export function buildAgentToolset(
  instances: readonly AgentToolInstance[],
  snapshots: ReadonlyMap<string, McpToolSnapshot> = new Map(),
  approvals: ReadonlyMap<string, ApprovedToolDefinition> = new Map(),
): AgentTool[] {
  const names = resolveAgentFacingNames(instances.map((i) => agentFacingBaseName(i.installation.app.name, i.toolName)));
  return instances.map((instance, index) => {
    const app = instance.installation.app;
    const approved = asApproved(instance, snapshots, approvals);
    const { tool, mcp, changePending } = approved;
    const text = tool ? (tool.agent_description ?? tool.description.ru) : (mcp?.description ?? mcp?.title ?? '');
    const description = `[App "${app.displayName}"] ${text}${instance.title ? ` — ${instance.title}` : ''}`;
    const parameters = tool
      ? effectiveParameters(tool.parameters, instance.configuredParameters as ConfiguredParameter[])
      : [];
    const refusal = refusalOf(instance, mcp) ?? approved.refusal;
    return { name: names[index], instance, tool, mcp, description, parameters, refusal, changePending };
  });
}

/** The instance's tool as its project approved it, whether a change waits, and a refusal when nothing was approved. */
function asApproved(
  instance: AgentToolInstance,
  snapshots: ReadonlyMap<string, McpToolSnapshot>,
  approvals: ReadonlyMap<string, ApprovedToolDefinition>,
): Pick<AgentTool, 'tool' | 'mcp' | 'changePending' | 'refusal'> {
  const row = instance.httpTool;
  const snapshot =
    instance.toolKind === 'mcp' ? (snapshots.get(snapshotKey(instance.appId, instance.toolName)) ?? null) : null;
  const current = { tool: row ? httpToolFromRow(row) : null, mcp: snapshot, changePending: false, refusal: null };
  if (instance.installation.approveChanges === 'auto' || (!row && !snapshot)) return current;
  const approval = approvals.get(approvalKey(instance.installationId, instance.toolKind, instance.toolName));
  if (!approval) {
    const why = "this tool is new since its project approved the app's tools: the project approves it first";
    return { ...current, changePending: true, refusal: why };
  }
  if (row) {
    if (sameDefinition(approval.definition, httpToolDefinition(row))) return current;
    return { ...current, tool: httpToolFromRow(httpToolAsApproved(row, approval)), changePending: true };
  }
  if (snapshot && !sameDefinition(approval.definition, mcpToolDefinition(snapshot))) {
    return { ...current, mcp: mcpToolAsApproved(snapshot, approval), changePending: true };
  }
  return current;
}

export function snapshotKey(appId: string, toolName: string): string {
  return `${appId}\u0000${toolName}`;
}

function refusalOf(instance: AgentToolInstance, mcp: McpToolSnapshot | null): string | null {
  const app = instance.installation.app;
  if (!app.agentToolsEnabled) return `app "${app.displayName}" has switched its agent tools off`;
  if (instance.toolKind === 'http' && app.agentToolsMode !== 'constructor') {
    return `app "${app.displayName}" now serves the tools of its MCP server; this HTTP tool is unavailable`;
  }
  if (instance.toolKind === 'mcp' && app.agentToolsMode !== 'mcp') {
    return `app "${app.displayName}" now serves HTTP tools; this MCP tool is unavailable`;
  }
  const status = instanceStatus(instance);
  if (status === 'disabled') return 'this tool is disabled for the agent';
  if (status === 'needs_configuration') return `${instance.configurationProblem}: open its configurator to fix it`;
  if (instance.toolKind === 'mcp') {
    if (!mcp) return `the MCP server of app "${app.displayName}" no longer lists this tool`;
    if (!mcp.available) return `the MCP server's tool is unavailable: ${mcp.reason}`;
    return null;
  }
  if (status === 'needs_private_data') return 'this tool needs its private data first: open its configurator';
  return null;
}
