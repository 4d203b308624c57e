/** One agent of one project: agent ids are the host platform's and repeat across projects. */
export interface AgentRef {
  projectId: string;
  agentId: string;
}

/** A key for something of one agent of one project, unambiguous whatever characters the ids and parts hold. */
export function agentKey(agent: AgentRef, ...parts: (string | number)[]): string {
  return JSON.stringify([agent.projectId, agent.agentId, ...parts]);
}
