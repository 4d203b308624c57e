import type { ListedTool } from '../../../mcp/src/index.js';
import { AGENT_FACING_NAME, agentFacingBaseName } from '../naming.js';

/** A tool as an MCP server lists it in `tools/list`. */
export type ListedMcpTool = ListedTool;

export interface McpSnapshotEntry extends ListedMcpTool {
  available: boolean;
  /** Why the tool is not offered to agents, when it is not. */
  reason: string | null;
}

/**
 * Decides which listed tools agents can be offered. Names are never changed behind anyone's
 * back: a tool whose agent-facing name would be invalid, or every copy of a name listed twice, is
 * kept in the snapshot as unavailable with the reason; a tool that can only run as a task is not offered.
 */
export function mcpSnapshotEntries(appName: string, tools: readonly ListedMcpTool[]): McpSnapshotEntry[] {
  const copies = new Map<string, number>();
  for (const tool of tools) copies.set(tool.name, (copies.get(tool.name) ?? 0) + 1);
  return tools.map((tool) => {
    const agentName = agentFacingBaseName(appName, tool.name);
    let reason: string | null = null;
    const count = copies.get(tool.name)!;
    // which copy is meant cannot be known: offering any one of them would be a silent choice
    if (count > 1)
      reason = `listed twice: the server lists "${tool.name}" ${count} times; give each tool its own name on the MCP server`;
    else if (!AGENT_FACING_NAME.test(agentName)) {
      reason =
        `its agent-facing name "${agentName}" would not match ^[a-zA-Z0-9_-]{1,64}$; ` +
        'Toolgate never renames tools: rename it on the MCP server';
    } else if (tool.execution?.taskSupport === 'required') {
      reason = 'it can only run as a task, which Toolgate does not offer to agents';
    }
    return { ...tool, available: reason === null, reason };
  });
}
