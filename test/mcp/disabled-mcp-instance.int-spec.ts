// A disabled MCP tool instance is hidden from the agent and refused, like a disabled HTTP one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgentMcp } from '../support/mcp-clients.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { type AuthCheckingServer, startAuthCheckingServer } from '../support/mcp-servers.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

let api: TestApi;
let server: AuthCheckingServer;

beforeAll(async () => {
  server = await startAuthCheckingServer('X-Api-Key', 'k1');
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
  await server.stop();
});

describe('a disabled MCP tool instance', () => {
  it('is neither listed (REST and MCP endpoint) nor callable (409, and an isError refusal over MCP)', async () => {
    const ctx = await mcpAgent(api, server.url, ['shout', 'sleep'], { headerName: 'X-Api-Key', headerValue: 'k1' });
    const tools = async () =>
      (await api.request('GET', `${ctx.base}/tools`, { token: ctx.agent })).body.data as {
        name: string;
        tool_instance_id: string;
      }[];
    const shout = (await tools()).find((t) => t.name === `${ctx.prefix}shout`)!;
    const disabled = await api.request(
      'PATCH',
      `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}/tool-instances/${shout.tool_instance_id}`,
      {
        token: ctx.project,
        body: { enabled: false },
      },
    );
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);

    expect((await tools()).map((t) => t.name)).toEqual([`${ctx.prefix}sleep`]);
    const call = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: shout.name, dialog_id: 'd', arguments: { text: 'hi' } },
    });
    expect(call.status).toBe(409);
    expect(call.headers.get('content-type')).toMatch(/problem\+json/);
    expect(call.body.detail).toMatch(/disabled/);

    const client = await connectAgentMcp(api, 'v2', ctx.agentId, ctx.agent);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([`${ctx.prefix}sleep`]);
      const refused = await client.callTool({ name: shout.name, arguments: { text: 'hi' } });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0].text).toMatch(/refused, nothing was sent: .*disabled/);
    } finally {
      await client.close();
    }
    const [{ count }] = await api.sql('SELECT count(*)::int AS count FROM tool_calls WHERE agent_id = $1', [
      ctx.agentId,
    ]);
    expect(count).toBe(0);
  });
});
