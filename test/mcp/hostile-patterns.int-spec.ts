// A pattern in an MCP tool's inputSchema that backtracks catastrophically (^(a+)+$ against "a"×29 + "!") is checked
// off the API's event loop with a time bound: its caller gets a refusal, every other tenant goes on being answered.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAgentMcp } from '../support/mcp-clients.js';
import { CHECK_TIME_LIMIT_MS } from '../../libs/domain/src/index.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { type ScriptedServer, listedTool, startScriptedServer } from '../support/mcp-servers.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

const HOSTILE = 'a'.repeat(29) + '!';

let api: TestApi;
let hostileServer: ScriptedServer;
let otherServer: ScriptedServer;
const received: { name: string; args: Record<string, unknown> }[] = [];

function stringArgument(pattern: string) {
  return {
    type: 'object',
    properties: { word: { type: 'string', pattern } },
    required: ['word'],
    additionalProperties: false,
  };
}

beforeAll(async () => {
  api = await startTestApi();
  const toolsCall = (name: string, args: Record<string, unknown>) => {
    received.push({ name, args });
    return { result: { content: [{ type: 'text', text: `${name} done` }] } };
  };
  hostileServer = await startScriptedServer({
    toolsList: () => ({
      result: {
        tools: [
          { name: 'nested', inputSchema: stringArgument('^(a+)+$') },
          { name: 'code', inputSchema: stringArgument('^[A-Z]{3}$') },
          {
            name: 'keys',
            inputSchema: { type: 'object', patternProperties: { '^(a|a)+$': { type: 'number' } } },
          },
        ],
      },
    }),
    toolsCall,
  });
  otherServer = await startScriptedServer({
    toolsList: () => ({ result: { tools: [listedTool('ping')] } }),
    toolsCall,
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await hostileServer?.stop();
  await otherServer?.stop();
});

type Ctx = Awaited<ReturnType<typeof mcpAgent>>;
const call = (ctx: Ctx, tool: string, args: unknown) =>
  api.request('POST', `${ctx.base}/tool-calls`, {
    token: ctx.agent,
    body: { tool: ctx.prefix + tool, dialog_id: 'd', arguments: args },
  });

describe('a catastrophic pattern in an MCP tool inputSchema', () => {
  it("is refused with a reason after its time bound, while another tenant's calls are answered at once", async () => {
    const hostile = await mcpAgent(api, hostileServer.url, ['nested', 'code']);
    const other = await mcpAgent(api, otherServer.url, ['ping']);
    // Warm: the other tenant's MCP session is open and its toolset loaded, the check thread started (a real pattern).
    expect((await call(other, 'ping', {})).body).toMatchObject({ status: 'succeeded' });
    expect((await call(hostile, 'code', { word: 'ABC' })).body).toMatchObject({ status: 'succeeded' });
    const before = received.length;

    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    let hostileDone = false;
    const hostileCall = call(hostile, 'nested', { word: HOSTILE }).finally(() => (hostileDone = true));
    await sleep(30); // the hostile check is under way
    const timings: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const answer = await call(other, 'ping', {});
      timings.push(performance.now() - started);
      expect(answer.body).toMatchObject({ status: 'succeeded', result_text: 'ping done' });
    }
    const stillChecking = !hostileDone;
    const refused = await hostileCall;
    loop.disable();

    expect(stillChecking, 'the other tenant was answered while the hostile check ran').toBe(true);
    // The median: one call of three may meet a busy machine (the check thread spins a core for its bound).
    const median = [...timings].sort((a, b) => a - b)[1];
    expect(median, `the other tenant's calls took ${timings.map(Math.round).join(', ')} ms`).toBeLessThan(100);
    // Had the check run on the event loop, the loop would have been held for the whole bound at least.
    expect(loop.max / 1e6, 'the longest stall of the event loop, ms').toBeLessThan(CHECK_TIME_LIMIT_MS);
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.errors).toEqual([
      { path: 'arguments', message: expect.stringMatching(/^not checked within 200 ms: a pattern .* too slow/) },
    ]);
    // Only the other tenant's calls went out.
    expect(received.slice(before).map((r) => r.name)).toEqual(['ping', 'ping', 'ping']);
  });

  it('is refused as an isError result over the agent MCP endpoint; patternProperties are bound the same way', async () => {
    const hostile = await mcpAgent(api, hostileServer.url, ['nested', 'keys']);
    await withAgentMcp(api, 'v2', hostile.agentId, hostile.agent, async (client) => {
      const nested = await client.callTool({ name: `${hostile.prefix}nested`, arguments: { word: HOSTILE } });
      expect(nested.isError).toBe(true);
      expect(nested.content[0].text).toMatch(/arguments: not checked within \d+ ms: .*pattern/);
      const keys = await client.callTool({ name: `${hostile.prefix}keys`, arguments: { [HOSTILE]: 1 } });
      expect(keys.isError).toBe(true);
      expect(keys.content[0].text).toMatch(/not checked within \d+ ms/);
    });
  });

  it('leaves ordinary patterns checked as before, also right after a check that ran out of time', async () => {
    const ctx = await mcpAgent(api, hostileServer.url, ['nested', 'code']);
    expect((await call(ctx, 'nested', { word: HOSTILE })).status).toBe(422);
    const bad = await call(ctx, 'code', { word: 'abc' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([{ path: 'arguments.word', message: 'must match pattern "^[A-Z]{3}$"' }]);
    expect((await call(ctx, 'code', { word: 'ABC' })).body).toMatchObject({ status: 'succeeded' });
    expect((await call(ctx, 'nested', { word: 'aaaa' })).body).toMatchObject({ status: 'succeeded' });
  });
});
