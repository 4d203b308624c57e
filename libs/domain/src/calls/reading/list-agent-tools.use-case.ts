import { Injectable } from '@nestjs/common';
import type { AgentTool } from '../../agents/agent-tool.js';
import { type AgentRef, AgentToolsets } from '../../agents/agent-toolsets.js';

/** The agent's tools, as the model sees them (callable ones only). */
@Injectable()
export class ListAgentTools {
  constructor(private readonly toolsets: AgentToolsets) {}

  async execute(agent: AgentRef): Promise<AgentTool[]> {
    return (await this.toolsets.load(agent)).filter((tool) => tool.refusal === null);
  }
}
