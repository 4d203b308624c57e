// An internal failure behind the agent MCP endpoint (here: the tool_calls table is gone) is answered
// with a generic message and the request id: no SQL, no table names, no file paths.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { connectAgentMcp } from '../support/mcp-clients.js';
import { type TestApi, startTestApi } from '../support/test-api.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let api: TestApi;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  api = await startTestApi();
}, 60_000);
afterAll(async () => {
  await api?.close();
  await handler?.stop();
});

it('answers a failure inside tools/call with "internal error" and the request id, leaking nothing', async () => {
  const ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url('/leak') })]);
  handler.secrets = [ctx.app.webhook_secret];
  const requestId = 'leak-check-42';
  const client = await connectAgentMcp(api, 'v2', ctx.agentId, ctx.agent, { 'x-request-id': requestId });
  await api.sql('ALTER TABLE tool_calls RENAME TO tool_calls_away');
  try {
    const error = await client.callTool({ name: agentFacingName(ctx.app), arguments: { customer_id: 'c1' } }).then(
      () => null,
      (e: unknown) => e as { code?: number; message: string; data?: unknown },
    );
    expect(error).not.toBeNull();
    expect(error!.code).toBe(-32603);
    expect(error!.message).toContain(`Internal error. Quote request id ${requestId} when reporting it.`);
    expect(error!.data).toEqual({ request_id: requestId });
    const everything = `${error!.message} ${JSON.stringify(error!.data)}`;
    expect(everything).not.toMatch(/tool_calls|prisma|relation|invocation|SELECT|INSERT|\/work\/|\.ts\b|node_modules/i);
  } finally {
    await api.sql('ALTER TABLE tool_calls_away RENAME TO tool_calls');
    await client.close();
  }
  expect(handler.received).toHaveLength(0);
});
