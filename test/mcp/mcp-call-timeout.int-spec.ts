// Each MCP app sets the deadline of its own calls (mcp_call_timeout_s in its agent-tools settings); an app that sets
// none gets the deployment's MCP_CALL_TIMEOUT_S (30 s here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { type ScriptedServer, listedTool, startScriptedServer } from '../support/mcp-servers.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

let api: TestApi;
let server: ScriptedServer;

beforeAll(async () => {
  api = await startTestApi();
  // a server that never answers a call: only the deadline ends it
  server = await startScriptedServer({
    toolsList: () => ({ result: { tools: [listedTool('hang')] } }),
    toolsCall: () => ({ endless: true }),
  });
});
afterAll(async () => {
  await server.stop();
  await api.close();
});

/** An agent with the `hang` tool of an app whose calls get `timeoutS`. */
async function agentOfAppWithDeadline(timeoutS: number) {
  const ctx = await mcpAgent(api, server.url, ['hang']);
  const put = await api.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
    token: ctx.dev,
    body: {
      enabled: true,
      mode: 'mcp',
      mcp: { url: server.url, auth_header_value_action: 'preserve' },
      mcp_call_timeout_s: timeoutS,
    },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  expect(put.body.mcp_call_timeout_s).toBe(timeoutS);
  return ctx;
}

describe("an MCP app's own call deadline", () => {
  it('ends each app’s calls at its own deadline, not at the global 30 s', async () => {
    const [two, three] = await Promise.all([agentOfAppWithDeadline(2), agentOfAppWithDeadline(3)]);
    const call = async (ctx: typeof two) => {
      const started = Date.now();
      const answer = await api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: `${ctx.prefix}hang`, dialog_id: 'd1' },
      });
      return { answer, seconds: (Date.now() - started) / 1000 };
    };
    const [a, b] = await Promise.all([call(two), call(three)]);
    expect(a.answer.body).toMatchObject({
      status: 'failed',
      error: { kind: 'timeout', message: 'the MCP server did not answer within 2 s' },
    });
    expect(b.answer.body).toMatchObject({
      status: 'failed',
      error: { kind: 'timeout', message: 'the MCP server did not answer within 3 s' },
    });
    expect(a.seconds).toBeGreaterThanOrEqual(1.9);
    expect(a.seconds).toBeLessThan(10);
    expect(b.seconds).toBeGreaterThanOrEqual(2.9);
    expect(b.seconds).toBeLessThan(10);
  });
});
