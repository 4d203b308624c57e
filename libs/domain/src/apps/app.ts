export const AGENT_TOOLS_MODES = ['constructor', 'mcp'] as const;
export type AgentToolsMode = (typeof AGENT_TOOLS_MODES)[number];

/** How long the previous webhook secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

