export const AGENT_TOOLS_MODES = ['constructor', 'mcp'] as const;
export type AgentToolsMode = (typeof AGENT_TOOLS_MODES)[number];
