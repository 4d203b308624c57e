// Which of an MCP server's tools agents are offered, and under which names: a name with "__" and an MCP Apps tool
// hidden from the model are never offered (kept in the snapshot, unavailable with the reason), and a collision
// suffix never makes an agent-facing name longer than 64 characters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgentMcp } from '../support/mcp-clients.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { uniqueAppName } from '../support/fixtures.js';
import { type ScriptedServer, listedTool, startScriptedServer } from '../support/mcp-servers.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

let api: TestApi;
const servers: ScriptedServer[] = [];

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await api.close();
});

/** A scripted server listing what `tools()` gives at each tools/list, and answering each call with its tool's name. */
async function serverListing(tools: () => unknown[]): Promise<ScriptedServer> {
  const server = await startScriptedServer({
    toolsList: () => ({ result: { tools: tools() } }),
    toolsCall: (name) => ({ result: { content: [{ type: 'text', text: `ran ${name}` }] } }),
  });
  servers.push(server);
  return server;
}

const withVisibility = (name: string, visibility: string[]) => ({
  ...listedTool(name),
  _meta: { ui: { resourceUri: `ui://widgets/${name}`, visibility } },
});

describe('a tool name holding "__"', () => {
  it('is kept unavailable with the reason, and cannot be given to an agent', async () => {
    const server = await serverListing(() => [listedTool('search'), listedTool('files__read')]);
    const ctx = await mcpAgent(api, server.url, ['search']);
    const snapshot = await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev });
    const listed = snapshot.body.data as { name: string; available: boolean; reason?: string }[];
    expect(listed.find((tool) => tool.name === 'search')).toMatchObject({ available: true });
    expect(listed.find((tool) => tool.name === 'files__read')).toMatchObject({
      available: false,
      reason: expect.stringContaining('holds "__", which agent hosts keep for the MCP servers users add themselves'),
    });
    const given = await api.request('POST', `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}/tool-instances`, {
      token: ctx.project,
      body: { installation_id: ctx.installationId, tool_name: 'files__read' },
    });
    expect(given.status).toBeGreaterThanOrEqual(400);
    const tools = await api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
    expect(tools.body.data.map((tool: { name: string }) => tool.name)).toEqual([`${ctx.prefix}search`]);
  });
});

describe('an MCP Apps tool hidden from the model', () => {
  it('is never offered: not listed over REST or MCP, not callable, even once given to an agent', async () => {
    let widgetVisibility = ['model', 'app'];
    const server = await serverListing(() => [
      withVisibility('shown', ['model', 'app']),
      withVisibility('widget', widgetVisibility),
      withVisibility('refresh_view', ['app']),
    ]);
    const ctx = await mcpAgent(api, server.url, ['shown', 'widget']);
    const first = (ctx.snapshot.data as { name: string; available: boolean; reason?: string }[]).find(
      (tool) => tool.name === 'refresh_view',
    );
    expect(first).toMatchObject({
      available: false,
      reason: expect.stringContaining('hidden from the model (_meta.ui.visibility is ["app"])'),
    });

    // The server hides a tool an agent already has.
    widgetVisibility = ['app'];
    const refreshed = await api.request('POST', `/v1/apps/${ctx.app.id}/mcp/refresh`, { token: ctx.dev });
    expect(refreshed.status).toBe(200);
    const widget = `${ctx.prefix}widget`;

    const listed = await api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
    expect(listed.body.data.map((tool: { name: string }) => tool.name)).toEqual([`${ctx.prefix}shown`]);
    const called = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: widget, dialog_id: 'd1' },
    });
    expect(called.status).toBe(409);
    expect(called.body.detail).toContain('hidden from the model');

    const client = await connectAgentMcp(api, 'v2', ctx.agentId, ctx.agent);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual([`${ctx.prefix}shown`]);
      const refused = await client.callTool({ name: widget });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toContain('hidden from the model');
    } finally {
      await client.close();
    }
    expect(server.methods).not.toContain('tools/call');
  });
});

describe('two tools whose 64-character agent-facing names collide', () => {
  it('give the later one a suffix within 64 characters, the base cut to fit, and it can be called', async () => {
    const first = uniqueAppName('col');
    const second = `${first}-b`; // "<first>_b_<tool>" is both apps' base name
    const tool = 'x'.repeat(64 - second.length - 1);
    const server = await serverListing(() => [listedTool(tool), listedTool(`b_${tool}`)]);
    const a = await mcpAgent(api, server.url, [`b_${tool}`], { name: first });
    const b = await mcpAgent(api, server.url, [tool], { name: second, projectId: a.projectId, agentId: a.agentId });
    const base = `${b.prefix}${tool}`;
    expect(base).toHaveLength(64);

    const listed = await api.request('GET', `${a.base}/tools`, { token: a.agent });
    const names = listed.body.data.map((t: { name: string }) => t.name);
    expect(names).toEqual([base, `${base.slice(0, 62)}_2`]);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

    const called = await api.request('POST', `${a.base}/tool-calls`, {
      token: a.agent,
      body: { tool: names[1], dialog_id: 'd1' },
    });
    expect(called.status).toBe(200);
    expect(called.body).toMatchObject({ status: 'succeeded', result_text: `ran ${tool}` });
    const client = await connectAgentMcp(api, 'v2', a.agentId, a.agent);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(names);
    } finally {
      await client.close();
    }
  });
});
