// What a model is given of an MCP tool's result: at most 16 content parts (agent hosts take 1 to 16), the 16th a
// line saying how many were left out, and `OK` for a result with nothing in it; `result` keeps what the server gave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgentMcp } from '../support/mcp-clients.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { type ScriptedServer, listedTool, startScriptedServer } from '../support/mcp-servers.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

let api: TestApi;
let server: ScriptedServer;
let ctx: Awaited<ReturnType<typeof mcpAgent>>;

const TWENTY = Array.from({ length: 20 }, (_, i) => ({ type: 'text', text: `part ${i + 1}` }));

beforeAll(async () => {
  api = await startTestApi();
  server = await startScriptedServer({
    toolsList: () => ({ result: { tools: [listedTool('many'), listedTool('empty')] } }),
    toolsCall: (name) => ({ result: { content: name === 'many' ? TWENTY : [] } }),
  });
  ctx = await mcpAgent(api, server.url, ['many', 'empty']);
});
afterAll(async () => {
  await server.stop();
  await api.close();
});

describe('an MCP result of 20 content parts', () => {
  it('reaches the model as 15 parts and a 16th line saying 5 were left out, over REST and MCP', async () => {
    const answer = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${ctx.prefix}many`, dialog_id: 'd1' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.result.content).toEqual(TWENTY);
    const parts = (answer.body.result_text as string).split('\n\n');
    expect(parts).toHaveLength(16);
    expect(parts.slice(0, 15)).toEqual(TWENTY.slice(0, 15).map((part) => part.text));
    expect(parts[15]).toMatch(/^\[5 more content parts not passed: .* at most 16 parts\]$/);

    const client = await connectAgentMcp(api, 'v2', ctx.agentId, ctx.agent);
    try {
      const result = await client.callTool({ name: `${ctx.prefix}many` });
      expect(result.content).toHaveLength(16);
      expect(result.content.slice(0, 15)).toEqual(TWENTY.slice(0, 15));
      expect(result.content[15]).toEqual({ type: 'text', text: parts[15] });
    } finally {
      await client.close();
    }
  });
});

describe('an MCP result with no content', () => {
  it('is OK over REST and MCP', async () => {
    const answer = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: `${ctx.prefix}empty`, dialog_id: 'd1' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'succeeded', result: { content: [] }, result_text: 'OK' });

    const client = await connectAgentMcp(api, 'v1', ctx.agentId, ctx.agent);
    try {
      const result = await client.callTool({ name: `${ctx.prefix}empty` });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: 'OK' }]);
    } finally {
      await client.close();
    }
  });
});
