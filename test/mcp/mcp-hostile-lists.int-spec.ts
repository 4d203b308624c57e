// What an MCP server lists is stored whatever its strings hold; a refresh that fails is recorded, and a server that
// keeps failing is asked again later and later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefreshStaleMcpSnapshots } from '../../libs/domain/src/index.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
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

async function serve(script: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> {
  const server = await startScriptedServer(script);
  servers.push(server);
  return server;
}

const snapshotOf = async (ctx: { app: { id: string }; dev: string }) =>
  (await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev })).body;

describe('a tools/list answer', () => {
  it('with NUL and unpaired surrogates in names, descriptions and schema keys is stored, such a name unavailable', async () => {
    const before = await serve({ toolsList: () => ({ result: { tools: [listedTool('old')] } }) });
    const ctx = await mcpAgent(api, before.url, ['old']);
    const hostile = await serve({
      toolsList: () => ({
        result: {
          tools: [
            listedTool('bad\u0000name'),
            listedTool('half\ud800'),
            listedTool('n'.repeat(5000)),
            {
              name: 'ok',
              description: 'says \u0000 and \udc00',
              inputSchema: { type: 'object', properties: { 'k\u0000': { type: 'string' } } },
            },
          ],
        },
      }),
    });
    const moved = await api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
      token: ctx.dev,
      body: { enabled: true, mode: 'mcp', mcp: { url: hostile.url, auth_header_value_action: 'clear' } },
    });
    expect(moved.status).toBe(200);
    const refreshed = await api.request('POST', `/v1/apps/${ctx.app.id}/mcp/refresh`, { token: ctx.dev });
    expect(refreshed.status, refreshed.text).toBe(200);

    const snapshot = await snapshotOf(ctx);
    expect(snapshot.last_error).toBeNull();
    expect(snapshot.data.map((t: { name: string; available: boolean }) => [t.name, t.available])).toEqual([
      ['bad\ufffdname', false],
      ['half\ufffd', false],
      [`${'n'.repeat(200)}…`, false],
      ['ok', true],
    ]);
    expect(snapshot.data[0].reason).toMatch(/^its name holds NUL \(U\+0000\), which cannot be stored or offered/);
    expect(snapshot.data[1].reason).toMatch(/^its name holds an unpaired UTF-16 surrogate/);
    expect(snapshot.data[2].reason).toMatch(/^its name is 5000 characters long/);
    expect(snapshot.data[3]).toMatchObject({
      description: 'says \ufffd and \ufffd',
      input_schema: { properties: { 'k\ufffd': { type: 'string' } } },
    });

    // The old server's tools are gone; the new server's valid tool can be given to an agent.
    const instance = await api.request('POST', `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}/tool-instances`, {
      token: ctx.project,
      body: { installation_id: ctx.installationId, tool_name: 'ok' },
    });
    expect(instance.status).toBe(201);
    const tools = await api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
    expect(tools.body.data.map((t: { name: string }) => t.name)).toEqual([`${ctx.prefix}ok`]);
  });

  it('that the database refuses fails the refresh with last_error recorded, keeping the previous snapshot', async () => {
    let listed = ['kept'];
    const server = await serve({ toolsList: () => ({ result: { tools: listed.map((name) => listedTool(name)) } }) });
    const ctx = await mcpAgent(api, server.url, ['kept']);
    // Stands for whatever Postgres may refuse of a tool list: a constraint of this test's schema that refuses a name.
    await api.sql(`ALTER TABLE mcp_tool_snapshots ADD CONSTRAINT refuses_a_name CHECK (name <> 'refused')`);
    try {
      listed = ['kept', 'refused'];
      const refresh = await api.request('POST', `/v1/apps/${ctx.app.id}/mcp/refresh`, { token: ctx.dev });
      expect(refresh.status).toBe(503);
      const because = `could not store the 2 tools listed by ${server.url}: the database refused them`;
      expect(refresh.body.detail).toBe(`${because}. The previous snapshot (1 tools) is kept.`);
      const snapshot = await snapshotOf(ctx);
      expect(snapshot.last_error).toBe(because);
      expect(snapshot.data.map((t: { name: string }) => t.name)).toEqual(['kept']);
      expect(refresh.text).not.toMatch(/refuses_a_name|constraint|mcp_tool_snapshots/);
    } finally {
      await api.sql('ALTER TABLE mcp_tool_snapshots DROP CONSTRAINT refuses_a_name');
    }
  });
});

describe('the periodic refresh of a server that keeps failing', () => {
  it('asks it again after 30 s, then 60 s, then 120 s…, records each failure, and as usual once it answers', async () => {
    let failing = false;
    const server = await serve({
      toolsList: () =>
        failing
          ? { http: { status: 500, headers: { 'content-type': 'text/plain' }, body: 'down' } }
          : { result: { tools: [listedTool('t')] } },
    });
    const ctx = await mcpAgent(api, server.url, ['t']);
    const refreshStale = api.app.get(RefreshStaleMcpSnapshots, { strict: false });
    const lists = () => server.methods.filter((method) => method === 'tools/list').length;
    const start = Date.now() + (api.env.MCP_SNAPSHOT_TTL_S + 1) * 1000; // the snapshot is stale by then
    /** Runs the worker's refresh as at `s` seconds after `start`; says whether the server was asked. */
    const runAt = async (s: number) => {
      const asked = lists();
      expect(await refreshStale.execute(new Date(start + s * 1000))).toEqual([]);
      return lists() > asked;
    };
    failing = true;
    expect(await runAt(0)).toBe(true);
    const recorded = await snapshotOf(ctx);
    expect(recorded.last_error).toMatch(/^could not load tools from .*\(HTTP 500\)/);
    expect(recorded.data.map((t: { name: string }) => t.name)).toEqual(['t']);
    expect([await runAt(29), await runAt(31)]).toEqual([false, true]);
    expect([await runAt(31 + 59), await runAt(31 + 61)]).toEqual([false, true]);
    expect([await runAt(92 + 119), await runAt(92 + 121)]).toEqual([false, true]);
    const [row] = await api.sql('SELECT mcp_snapshot_failures FROM apps WHERE id = $1', [ctx.app.id]);
    expect(row.mcp_snapshot_failures).toBe(4);

    failing = false;
    expect(await runAt(213 + 241)).toBe(true);
    expect((await snapshotOf(ctx)).last_error).toBeNull();
    // Answering again, it is refreshed every MCP_SNAPSHOT_TTL_S, as before it failed.
    expect(await runAt(454 + 60)).toBe(false);
    expect(await runAt(454 + api.env.MCP_SNAPSHOT_TTL_S + 1)).toBe(true);
  });
});
