// MCP servers that change, restart, hang or fail: each affects only its own app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { mcpAgent } from '../support/mcp-fixtures.js';
import { startAuthCheckingServer, startChangingServer, startEverything } from '../support/mcp-servers.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ MCP_CALL_TIMEOUT_S: '2' });
});
afterAll(() => api.close());

describe('an MCP server', () => {
  it('that sends notifications/tools/list_changed gets its snapshot reloaded', async () => {
    const server = await startChangingServer(['alpha']);
    try {
      const ctx = await mcpAgent(api, server.url, ['alpha']);
      const names = async () =>
        (await api.request('GET', `/v1/apps/${ctx.app.id}/mcp/tools`, { token: ctx.dev })).body.data.map(
          (t: { name: string }) => t.name,
        );
      expect(await names()).toEqual(['alpha']);
      server.addTool('beta');
      await eventually(async () => expect(await names()).toContain('beta'), { timeoutMs: 10_000, intervalMs: 100 });
      expect(await names()).toEqual(['alpha', 'beta']);
    } finally {
      await server.stop();
    }
  });

  it('that restarted and forgot the session is initialized again, once, and the call succeeds', async () => {
    const server = await startEverything();
    try {
      const ctx = await mcpAgent(api, server.url, ['echo']);
      const echo = () =>
        api.request('POST', `${ctx.base}/tool-calls`, {
          token: ctx.agent,
          body: { tool: `${ctx.prefix}echo`, dialog_id: 'd', arguments: { message: 'again' } },
        });
      expect((await echo()).body.status).toBe('succeeded');
      await server.stop();
      await server.start();
      const afterRestart = await echo();
      expect(afterRestart.body).toMatchObject({ status: 'succeeded', result_text: 'Echo: again' });
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('that hangs times out at its deadline without delaying another app', async () => {
    const slow = await startAuthCheckingServer('X-Key', 'k');
    const fast = await startEverything();
    try {
      const hanging = await mcpAgent(api, slow.url, ['sleep'], { headerName: 'X-Key', headerValue: 'k' });
      const quick = await mcpAgent(api, fast.url, ['echo']);
      const started = Date.now();
      const pending = api.request('POST', `${hanging.base}/tool-calls`, {
        token: hanging.agent,
        body: { tool: `${hanging.prefix}sleep`, dialog_id: 'd', arguments: { ms: 60_000 } },
      });
      const echoStarted = Date.now();
      const echo = await api.request('POST', `${quick.base}/tool-calls`, {
        token: quick.agent,
        body: { tool: `${quick.prefix}echo`, dialog_id: 'd', arguments: { message: 'fast' } },
      });
      expect(echo.body.status).toBe('succeeded');
      expect(Date.now() - echoStarted).toBeLessThan(1000);
      const timedOut = await pending;
      expect(timedOut.body).toMatchObject({
        status: 'failed',
        error: { kind: 'timeout', message: 'the MCP server did not answer within 2 s' },
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect(Date.now() - started).toBeLessThan(6000);
    } finally {
      await slow.stop();
      await fast.stop();
    }
  }, 60_000);
});
