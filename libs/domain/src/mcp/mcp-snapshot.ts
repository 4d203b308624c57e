import type { ListedTool } from '../../../mcp/src/index.js';
import { storableJson, storableText } from '../../../persistence/src/index.js';
import { AGENT_FACING_NAME, agentFacingBaseName } from '../naming.js';

/** A tool as an MCP server lists it in `tools/list`. */
export type ListedMcpTool = ListedTool;

export interface McpSnapshotEntry extends ListedMcpTool {
  available: boolean;
  /** Why the tool is not offered to agents, when it is not. */
  reason: string | null;
}

/** A listed name longer than this is kept cut: an index entry holds at most a few KiB, and no agent name is this long. */
export const MAX_KEPT_TOOL_NAME_CHARS = 200;

/**
 * Decides which listed tools agents can be offered. Names are never changed behind anyone's
 * back: a tool whose agent-facing name would be invalid, or every copy of a name listed twice, is
 * kept in the snapshot as unavailable with the reason; a tool that can only run as a task is not offered.
 * Every string is kept as Postgres can hold it (NUL and unpaired surrogates become U+FFFD, nesting past 100 levels
 * is named instead): a tool whose name had to be changed for that is unavailable, saying why.
 */
export function mcpSnapshotEntries(appName: string, tools: readonly ListedMcpTool[]): McpSnapshotEntry[] {
  const copies = new Map<string, number>();
  for (const tool of tools) copies.set(tool.name, (copies.get(tool.name) ?? 0) + 1);
  return tools.map((tool) => {
    const reason = whyNotOffered(appName, tool, copies.get(tool.name)!);
    return { ...storableTool(tool), available: reason === null, reason };
  });
}

function whyNotOffered(appName: string, tool: ListedMcpTool, copies: number): string | null {
  // which copy is meant cannot be known: offering any one of them would be a silent choice
  if (copies > 1) {
    const shown = keptName(tool.name);
    return `listed twice: the server lists "${shown}" ${copies} times; give each tool its own name on the MCP server`;
  }
  const unstorable = unstorableIn(tool.name);
  if (unstorable) {
    return (
      `its name holds ${unstorable}, which cannot be stored or offered (it is shown with U+FFFD in its place): ` +
      'rename it on the MCP server'
    );
  }
  if (tool.name.length > MAX_KEPT_TOOL_NAME_CHARS) {
    return (
      `its name is ${tool.name.length} characters long (kept cut to ${MAX_KEPT_TOOL_NAME_CHARS}); an agent-facing ` +
      'name holds at most 64: rename it on the MCP server'
    );
  }
  const agentName = agentFacingBaseName(appName, tool.name);
  if (!AGENT_FACING_NAME.test(agentName)) {
    return (
      `its agent-facing name "${agentName}" would not match ^[a-zA-Z0-9_-]{1,64}$; ` +
      'Toolgate never renames tools: rename it on the MCP server'
    );
  }
  if (agentName.includes('__')) {
    return (
      `its agent-facing name "${agentName}" holds "__", which agent hosts keep for the MCP servers users add ` +
      'themselves: rename it on the MCP server'
    );
  }
  const visibility = hiddenFromModel(tool);
  if (visibility !== null) {
    return (
      `it is hidden from the model (_meta.ui.visibility is ${visibility}): an MCP Apps tool only its app's view may ` +
      'call is never offered to agents; add "model" to its visibility to offer it'
    );
  }
  if (tool.execution?.taskSupport === 'required') {
    return 'it can only run as a task, which Toolgate does not offer to agents';
  }
  return null;
}

/**
 * The tool's `_meta.ui.visibility` as JSON when it keeps the tool from the model (MCP Apps: present and without
 * "model"), else null. Absent, a tool is visible to both the model and the app.
 */
function hiddenFromModel(tool: ListedMcpTool): string | null {
  const { _meta: meta } = tool;
  const ui = meta?.ui;
  if (ui === null || typeof ui !== 'object' || !('visibility' in ui)) return null;
  const visibility = (ui as { visibility?: unknown }).visibility;
  if (visibility === undefined) return null;
  if (Array.isArray(visibility) && visibility.includes('model')) return null;
  return JSON.stringify(visibility) ?? typeof visibility;
}

/** What in a name Postgres cannot hold, or null. */
function unstorableIn(name: string): string | null {
  if (name.includes('\u0000')) return 'NUL (U+0000)';
  return storableText(name) === name ? null : 'an unpaired UTF-16 surrogate';
}

/** The name as it is kept: storable, and cut when too long. */
function keptName(name: string): string {
  // cut before cleaning: a cut through a surrogate pair leaves half of it, which cleaning replaces
  return storableText(name.length > MAX_KEPT_TOOL_NAME_CHARS ? `${name.slice(0, MAX_KEPT_TOOL_NAME_CHARS)}…` : name);
}

/** The tool with every string and key storable, and its name as kept. */
function storableTool(tool: ListedMcpTool): ListedMcpTool {
  return { ...(storableJson(tool) as ListedMcpTool), name: keptName(tool.name) };
}
