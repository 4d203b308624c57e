// The official MCP SDK clients against an agent's endpoint (/v1/agents/{agent_id}/mcp): v1 speaks 2025-11-25,
// v2 negotiates the newest protocol.
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type SdkKind = 'v1' | 'v2';

/** What the tests use of either SDK's client. */
export type AgentMcpClient = {
  listTools(): Promise<{
    tools: { name: string; description?: string; inputSchema: unknown; annotations?: unknown }[];
  }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    ...rest: unknown[]
  ): Promise<Record<string, any>>;
  close(): Promise<void>;
};

/** How to read the protocol revision each connected client's session speaks. */
const protocols = new WeakMap<AgentMcpClient, () => string | undefined>();

/** The protocol revision the client's session speaks (v1: its transport's header; v2: what it negotiated). */
export function protocolOf(client: AgentMcpClient): string | undefined {
  return protocols.get(client)?.();
}

/** A client of the `kind` SDK connected to the agent's MCP endpoint with the agent's token (and `headers`). */
export async function connectAgentMcp(
  api: { baseUrl: string },
  kind: SdkKind,
  agentId: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<AgentMcpClient> {
  const url = new URL(`${api.baseUrl}/v1/agents/${encodeURIComponent(agentId)}/mcp`);
  const requestInit = { headers: { authorization: `Bearer ${token}`, ...headers } };
  if (kind === 'v1') {
    const client = new V1Client({ name: 'test-v1', version: '1.0.0' });
    const transport = new V1Transport(url, { requestInit });
    await client.connect(transport);
    protocols.set(client, () => transport.protocolVersion);
    return client;
  }
  const client = new V2Client({ name: 'test-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new V2Transport(url, { requestInit }));
  protocols.set(client, () => client.getNegotiatedProtocolVersion());
  return client;
}

/** Runs `use` with a connected client and closes it after. */
export async function withAgentMcp<T>(
  api: { baseUrl: string },
  kind: SdkKind,
  agentId: string,
  token: string,
  use: (client: AgentMcpClient) => Promise<T>,
): Promise<T> {
  const client = await connectAgentMcp(api, kind, agentId, token);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** callTool with request options (timeout, signal, onprogress), in each SDK's argument order. */
export function callToolWith(
  kind: SdkKind,
  client: AgentMcpClient,
  params: { name: string; arguments?: Record<string, unknown> },
  options: Record<string, unknown>,
) {
  return kind === 'v1' ? client.callTool(params, undefined, options) : client.callTool(params, options);
}
