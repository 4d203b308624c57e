// An MCP tool result nested deeper than anything walks safely is kept as its JSON text, as a handler's answer is:
// the call is recorded once, and the agent learns its call_id over REST and over its MCP endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgentMcp } from '../support/mcp-clients.js';
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

/** 5,000 levels of `{"a": …}`: about 30 KB. */
const DEEP = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;

describe('an MCP result nested 5,000 levels', () => {
  it.each([
    ['in structured content alone', `{"content":[],"structuredContent":${DEEP}}`, DEEP],
    ['beside a text block', `{"content":[{"type":"text","text":"done"}],"structuredContent":${DEEP}}`, 'done'],
  ])('%s is kept as its JSON text; REST and the MCP endpoint answer with the call', async (_, resultJson, text) => {
    const server = await startScriptedServer({
      toolsList: () => ({ result: { tools: [listedTool('deep')] } }),
      toolsCall: () => ({ resultJson }),
    });
    servers.push(server);
    const ctx = await mcpAgent(api, server.url, ['deep']);
    const tool = `${ctx.prefix}deep`;

    const answer = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool, dialog_id: 'd' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ call_id: expect.stringMatching(/^call_/), status: 'succeeded' });
    expect(answer.body.result_text).toBe(text);
    expect(typeof answer.body.result).toBe('string');
    expect(answer.body.result).toMatch(/^\{"content":\[/);
    expect(answer.body.result).toContain(`"structuredContent":${DEEP}`);
    const read = await api.request('GET', `${ctx.base}/tool-calls/${answer.body.call_id}`, { token: ctx.agent });
    expect(read.body).toMatchObject({ status: 'succeeded', result: answer.body.result, result_text: text });

    const client = await connectAgentMcp(api, 'v2', ctx.agentId, ctx.agent);
    try {
      const result = await client.callTool({ name: tool });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text }]);
      const { _meta: meta } = result;
      const callId = meta?.['toolgate/call_id'];
      expect(callId).toMatch(/^call_/);
      const called = await api.request('GET', `${ctx.base}/tool-calls/${callId}`, { token: ctx.agent });
      expect(called.body).toMatchObject({ status: 'succeeded', result_text: text });
    } finally {
      await client.close();
    }
    expect(server.methods.filter((method) => method === 'tools/call')).toHaveLength(2); // each call sent once
  });
});
