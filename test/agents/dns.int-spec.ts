// Handler hosts are resolved with c-ares, off the thread pool that JWT checks and secret decryption
// use, and each app has at most 4 names in lookup: a DNS that never answers slows only its own app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestDnsServer, startDnsServer } from '../support/dns-server.js';
import { type TestApi, startTestApi } from '../support/test-api.js';
import { WebhookHandler } from '../support/webhook-handler.js';

const DNS_TIMEOUT_MS = 6000;

let api: TestApi;
let handler: WebhookHandler;
let dns: TestDnsServer;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  dns = await startDnsServer({ 'fast.tenant.test': ['127.0.0.1'] }, (name) => name.endsWith('.hang.test'));
  api = await startTestApi({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS) });
});
afterAll(async () => {
  await api.close();
  await handler.stop();
  await dns.stop();
});

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe('a DNS server that never answers one app', () => {
  it("keeps other tenants' calls and JWT requests fast while a dozen of its lookups hang; it fails its own calls", async () => {
    const port = Number(new URL(handler.baseUrl).port);
    const hangingTools = Array.from({ length: 12 }, (_, i) =>
      httpTool({ name: `tool_${i}`, handler_url: `http://h${i}.hang.test:${port}/hook` }),
    );
    const hanging = await agentWithTools(api, hangingTools);
    const other = await agentWithTools(api, [httpTool({ handler_url: `http://fast.tenant.test:${port}/hook` })]);
    handler.secrets = [hanging.app.webhook_secret, other.app.webhook_secret];
    const otherCall = () =>
      api.request('POST', `${other.base}/tool-calls`, {
        token: other.agent,
        body: {
          tool: agentFacingName(other.app),
          dialog_id: 'd',
          arguments: { customer_id: 'c' },
        },
      });
    expect((await otherCall()).body).toMatchObject({ status: 'succeeded' }); // resolved through the same DNS server

    const settled: boolean[] = [];
    const stuck = hangingTools.map((tool, i) => {
      settled[i] = false;
      return api
        .request('POST', `${hanging.base}/tool-calls`, {
          token: hanging.agent,
          body: {
            tool: agentFacingName(hanging.app, tool.name),
            dialog_id: 'd',
            arguments: { customer_id: 'c' },
          },
        })
        .finally(() => (settled[i] = true));
    });
    const hangingNames = () => new Set(dns.queries.filter((q) => q.name.endsWith('.hang.test')).map((q) => q.name));
    await eventually(() => expect(hangingNames().size).toBeGreaterThanOrEqual(4), { intervalMs: 20 });
    const measuredFrom = Date.now();

    for (let i = 0; i < 5; i++) {
      const call = await timed(otherCall);
      expect(call.value.body).toMatchObject({ status: 'succeeded' });
      expect(call.ms).toBeLessThan(1500);
      const tools = await timed(() => api.request('GET', `${other.base}/tools`, { token: other.agent }));
      expect(tools.value.status).toBe(200);
      expect(tools.ms).toBeLessThan(1000);
      const app = await timed(() => api.request('GET', `/v1/apps/${hanging.app.id}`, { token: hanging.dev }));
      expect(app.value.status).toBe(200);
      expect(app.ms).toBeLessThan(1000);
    }
    // all of that happened while the hanging app's lookups were still unanswered
    // Only the four lookups hang; the other calls fail at once (a loaded machine may still be answering one of them).
    await eventually(() => expect(settled.filter((done) => !done).length).toBe(4), { timeoutMs: 1000, intervalMs: 20 });
    expect(Date.now() - measuredFrom).toBeLessThan(DNS_TIMEOUT_MS);

    const results = (await Promise.all(stuck)).map((response) => response.body);
    expect(results.every((body) => body.status === 'failed' && body.error.kind === 'network')).toBe(true);
    const busy = results.filter((body) =>
      /4 DNS lookups of this app's hosts are still unanswered/.test(body.error.message),
    );
    const timedOut = results.filter((body) =>
      /DNS lookup of h\d+\.hang\.test got no answer within 6000 ms/.test(body.error.message),
    );
    expect(busy).toHaveLength(8);
    expect(timedOut).toHaveLength(4);
    expect(hangingNames().size).toBe(4);
    expect(handler.received.filter((r) => r.event.tool_name.startsWith('tool_'))).toHaveLength(0);
  }, 60_000);
});
