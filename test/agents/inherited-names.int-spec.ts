// Parameter and property names that every JavaScript object inherits (constructor, toString, valueOf, __proto__…)
// are parameters like any other: an optional one may be left out, a given one is checked and sent as it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWithTools, httpTool } from '../support/fixtures.js';
import { withAgentMcp } from '../support/mcp-clients.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { type ScriptedServer, startScriptedServer } from '../support/mcp-servers.js';
import { type TestApi, startTestApi } from '../support/test-api.js';
import { WebhookHandler } from '../support/webhook-handler.js';

const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'];

let api: TestApi;
let handler: WebhookHandler;
let mcpServer: ScriptedServer;
const mcpReceived: Record<string, unknown>[] = [];

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  api = await startTestApi();
  mcpServer = await startScriptedServer({
    toolsList: () => ({
      result: {
        tools: [
          {
            name: 'lookup',
            inputSchema: {
              type: 'object',
              properties: Object.fromEntries(INHERITED.map((name) => [name, { type: 'string' }])),
              required: ['valueOf'],
              additionalProperties: false,
            },
          },
        ],
      },
    }),
    toolsCall: (_name, args) => {
      mcpReceived.push(args);
      return { result: { content: [{ type: 'text', text: 'found' }] } };
    },
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await handler?.stop();
  await mcpServer?.stop();
});

describe('an HTTP tool whose parameters have inherited names', () => {
  async function setup(instance: Record<string, unknown> = {}) {
    const path = `/hook/${Math.random().toString(36).slice(2)}`;
    const parameters = INHERITED.map((name) => ({ name, type: 'string', description: `The ${name}`, required: false }));
    const ctx = await agentWithTools(
      api,
      [httpTool({ handler_url: handler.url(path), parameters, configurable: true })],
      { instances: { find_customer: instance } },
    );
    handler.secrets = [ctx.app.webhook_secret];
    const call = (args: unknown) =>
      api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: ctx.toolName, dialog_id: 'd1', arguments: args },
      });
    return { ...ctx, path, call };
  }

  it('takes them optional when left out, checks and sends them when given', async () => {
    const ctx = await setup();
    const listed = await api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
    expect(Object.keys(listed.body.data[0].parameters.properties)).toEqual(INHERITED);
    expect(listed.body.data[0].parameters.required).toEqual([]);

    const none = await ctx.call({});
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect(none.body.status).toBe('succeeded');
    expect(handler.at(ctx.path).at(-1)!.event.arguments).toEqual({});

    const all = Object.fromEntries(INHERITED.map((name) => [name, `${name}!`]));
    // JSON text: an object literal's "__proto__" would set the prototype instead of a property.
    const given = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      rawBody: JSON.stringify({ tool: ctx.toolName, dialog_id: 'd1', arguments: all }),
    });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    const sent = handler.at(ctx.path).at(-1)!.event.arguments;
    expect(Object.keys(sent)).toEqual(INHERITED);
    for (const name of INHERITED) expect(Object.getOwnPropertyDescriptor(sent, name)?.value).toBe(`${name}!`);

    const wrong = await ctx.call({ constructor: 5, valueOf: true });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([
      { path: 'arguments.constructor', message: 'must be a string' },
      { path: 'arguments.valueOf', message: 'must be a string' },
    ]);
  });

  it('applies an instance that makes one required or restricts its values', async () => {
    const ctx = await setup({
      configured_parameters: [
        { name: 'toString', type: 'string', description: 'Required here', required: true, allowed_values: [] },
        { name: 'constructor', type: 'string', description: 'One of two', required: false, allowed_values: ['a', 'b'] },
      ],
    });
    const missing = await ctx.call({});
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([{ path: 'arguments.toString', message: 'required (string): Required here' }]);
    const other = await ctx.call({ toString: 'x', constructor: 'c' });
    expect(other.body.errors).toEqual([{ path: 'arguments.constructor', message: 'must be one of "a", "b"' }]);
    expect((await ctx.call({ toString: 'x', constructor: 'a' })).body.status).toBe('succeeded');
  });
});

describe('an MCP tool whose inputSchema has inherited names', () => {
  it('takes them optional when left out and required only when the schema says so, over REST and MCP', async () => {
    const ctx = await mcpAgent(api, mcpServer.url, ['lookup']);
    const call = (args: unknown) =>
      api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: `${ctx.prefix}lookup`, dialog_id: 'd1', arguments: args },
      });
    const missing = await call({});
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([{ path: 'arguments.valueOf', message: 'required' }]);
    const given = await call({ valueOf: 'v', toString: 't' });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    expect(mcpReceived.at(-1)).toEqual({ valueOf: 'v', toString: 't' });

    await withAgentMcp(api, 'v2', ctx.agentId, ctx.agent, async (client) => {
      const result = await client.callTool({ name: `${ctx.prefix}lookup`, arguments: { valueOf: 'v' } });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(mcpReceived.at(-1)).toEqual({ valueOf: 'v' });
    });
  });
});
