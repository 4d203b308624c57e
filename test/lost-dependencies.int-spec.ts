// A lost dependency answers at once: Redis (a redis-server of this file's own, stopped and started
// again), Postgres (reached through a proxy this file cuts) and the JWKS URL, each taken away from
// a real API (and worker); nothing else shares them, so other test files are not hit.
import { type Server, createServer } from 'node:http';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRedis, freePort, startLocalRedis } from '../scripts/local-services.js';
import { DATABASE_TIMEOUTS } from '../libs/persistence/src/index.js';
import { REQUEST_COMMAND_TIMEOUT_MS } from '../libs/redis/src/index.js';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentFacingPrefix, agentWithTools, httpTool } from './support/fixtures.js';
import { type TcpProxy, startTcpProxy } from './support/tcp-proxy.js';
import { type TestApi, freshDatabase, startTestApi } from './support/test-api.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { developerToken } from './support/tokens.js';
import { WebhookHandler } from './support/webhook-handler.js';

let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
});
afterAll(async () => {
  await handler?.stop();
});

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = Date.now();
  const value = await work();
  return { ms: Date.now() - started, value };
}

describe('while Redis is down', () => {
  let redis: LocalRedis;
  let stack: TestStack;

  beforeAll(async () => {
    redis = await startLocalRedis();
    // Every call through the queue (no first attempt in the API), which Redis's outage is about.
    stack = await startTestStack({ REDIS_URL: redis.url, RECONCILE_INTERVAL_MS: '300', API_DELIVERY_CONCURRENCY: '0' });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await redis?.stop();
  });

  it('accepts wait and background calls (202 at once), answers instant calls and reads; they are delivered once it is back', async () => {
    const tool = (mode: string, retryWindow?: string) =>
      httpTool({
        name: `${mode}_tool`,
        execution_mode: mode,
        retry_window: retryWindow,
        handler_url: handler.url(`/redis-down/${mode}`),
      });
    const tools = [tool('wait', '5m'), tool('background', '5m'), tool('instant')];
    const ctx = await agentWithTools(stack.api, tools);
    handler.secrets = [ctx.app.webhook_secret];
    const prefix = agentFacingPrefix(ctx.app);
    const call = (name: string) => {
      const body = { tool: prefix + name, dialog_id: 'd', arguments: { customer_id: 'c' } };
      return stack.api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body });
    };
    // Limits counted in Redis: while it is down they are not enforced (a limit never loses a call).
    const limited = await stack.api.request('PATCH', `/v1/apps/${ctx.app.id}`, {
      token: ctx.dev,
      body: { delivery_limits: { max_in_flight: 1, max_per_second: 1 } },
    });
    expect(limited.status, limited.text).toBe(200);
    const quota = await stack.api.request('PUT', `/v1/projects/${ctx.projectId}/limits`, {
      token: ctx.project,
      body: { agent_calls_per_minute: 1 },
    });
    expect(quota.status, quota.text).toBe(200);
    // Warm up (connections open, toolset cached) so that what follows measures the outage only. The agent's quota
    // of one call a minute is used up by it.
    expect((await call('instant_tool')).status).toBe(200);

    await redis.stop();

    const waitCall = await timed(() => call('wait_tool'));
    expect(waitCall.value.status, waitCall.value.text).toBe(202);
    expect(waitCall.ms).toBeLessThan(1000);
    const backgroundCall = await timed(() => call('background_tool'));
    expect(backgroundCall.value.status, backgroundCall.value.text).toBe(202);
    expect(backgroundCall.ms).toBeLessThan(1000);

    const instant = await timed(() => call('instant_tool'));
    expect(instant.value.status, instant.value.text).toBe(200);
    expect(instant.value.body.status).toBe('succeeded');
    expect(instant.ms).toBeLessThan(1000);

    const callPath = `${ctx.base}/tool-calls/${waitCall.value.body.call_id}`;
    const read = await timed(() => stack.api.request('GET', callPath, { token: ctx.agent }));
    expect(read.value.status, read.value.text).toBe(200);
    expect(read.value.body.status).toBe('queued');
    expect(read.ms).toBeLessThan(1000);
    const list = await timed(() => stack.api.request('GET', `${ctx.base}/tools`, { token: ctx.agent }));
    expect(list.value.status).toBe(200);
    expect(list.ms).toBeLessThan(1000);

    // An MCP client's call (instant, with a cancel listener that needs pub/sub) answers too.
    const mcp = new McpClient({ name: 'redis-down', version: '1.0.0' });
    const headers = { authorization: `Bearer ${ctx.agent}` };
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.api.baseUrl}${ctx.base}/mcp`), { requestInit: { headers } }),
    );
    try {
      const mcpCall = await timed(() =>
        mcp.callTool({ name: prefix + 'instant_tool', arguments: { customer_id: 'm' } }),
      );
      expect(mcpCall.value.isError ?? false, JSON.stringify(mcpCall.value)).toBe(false);
      expect(mcpCall.ms).toBeLessThan(1000);
    } finally {
      await mcp.close();
    }

    expect(handler.at('/redis-down/wait')).toHaveLength(0);
    await redis.restart();
    const ids = [waitCall.value.body.call_id, backgroundCall.value.body.call_id];
    await eventually(
      async () => {
        const rows = await stack.api.sql('SELECT status FROM tool_calls WHERE id = ANY($1)', [ids]);
        expect(rows.map((row) => row.status)).toEqual(['succeeded', 'succeeded']);
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(handler.at('/redis-down/wait')).toHaveLength(1);
    expect(handler.at('/redis-down/background')).toHaveLength(1);
  }, 60_000);
});

describe('while Redis is down, with a first-attempt slot free in the API', () => {
  let redis: LocalRedis;
  let stack: TestStack;

  beforeAll(async () => {
    redis = await startLocalRedis();
    // No worker: whatever is delivered, the API delivers.
    stack = await startTestStack({ REDIS_URL: redis.url }, { worker: false });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await redis?.stop();
  });

  it('delivers a background call: the first attempt needs no Redis', async () => {
    const ctx = await agentWithTools(stack.api, [
      httpTool({ execution_mode: 'background', retry_window: '5m', handler_url: handler.url('/redis-down/first') }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    const call = () =>
      stack.api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: agentFacingName(ctx.app), dialog_id: 'd', arguments: { customer_id: 'c' } },
      });
    // Warm up (connections open, toolset cached) so that what follows measures the outage only.
    expect((await call()).status).toBe(202);
    await eventually(() => expect(handler.at('/redis-down/first')).toHaveLength(1));

    await redis.stop();
    const accepted = await timed(call);
    expect(accepted.value.status, accepted.value.text).toBe(202);
    expect(accepted.ms).toBeLessThan(1000);
    await eventually(async () => {
      const rows = await stack.api.sql('SELECT status FROM tool_calls WHERE id = $1', [accepted.value.body.call_id]);
      expect(rows).toEqual([{ status: 'succeeded' }]);
    });
    expect(handler.at('/redis-down/first')).toHaveLength(2);
    await redis.restart();
  }, 30_000);
});

describe('a Redis that takes connections and never answers', () => {
  let redis: LocalRedis;
  let proxy: TcpProxy;
  let api: TestApi;

  beforeAll(async () => {
    redis = await startLocalRedis();
    const url = new URL(redis.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    // A queued call's enqueue is among what is timed: no first attempt in the API.
    api = await startTestApi({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, API_DELIVERY_CONCURRENCY: '0' });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
    await redis?.stop();
  });

  it('still accepts a call within the command timeouts (the tool list read, the enqueue)', async () => {
    const background = httpTool({
      execution_mode: 'background',
      retry_window: '5m',
      handler_url: handler.url('/redis-silent'),
    });
    const ctx = await agentWithTools(api, [background]);
    const tool = agentFacingName(ctx.app);
    const body = { tool, dialog_id: 'd', arguments: { customer_id: 'c' } };
    expect((await api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body })).status).toBe(202);
    await proxy.set('silent');
    const accepted = await timed(() => api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body }));
    expect(accepted.value.status, accepted.value.text).toBe(202);
    expect(accepted.ms).toBeLessThan(2 * REQUEST_COMMAND_TIMEOUT_MS + 1500);
    const [row] = await api.sql('SELECT status FROM tool_calls WHERE id = $1', [accepted.value.body.call_id]);
    expect(row.status).toBe('queued');
  }, 30_000);

  it('answers an instant call without waiting for its finished event, which Redis does not take', async () => {
    const ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url('/redis-silent-instant') })]);
    handler.secrets = [ctx.app.webhook_secret];
    const body = { tool: agentFacingName(ctx.app), dialog_id: 'd', arguments: { customer_id: 'c' } };
    const call = () => timed(() => api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body }));
    expect((await call()).value.status).toBe(200); // the toolset is cached, heard of on a live subscription
    await proxy.set('silent');
    const answered = await call();
    expect(answered.value.status, answered.value.text).toBe(200);
    expect(answered.value.body.status).toBe('succeeded');
    // The event's PUBLISH goes out best effort; waiting for it would take the command timeout.
    expect(answered.ms).toBeLessThan(REQUEST_COMMAND_TIMEOUT_MS / 2);
    await proxy.set('up');
  }, 30_000);
});

describe('while Postgres is down', () => {
  let proxy: TcpProxy;
  let api: TestApi;

  beforeAll(async () => {
    const database = await freshDatabase();
    const url = new URL(database.databaseUrl);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    url.port = String(proxy.port);
    api = await startTestApi({ DATABASE_URL: url.toString() }, database);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
  });

  const listApps = (token: string) => api.request('GET', '/v1/apps', { token });

  function expectPostgresUnavailable(response: { status: number; headers: Headers; body: any; text: string }) {
    expect(response.status, response.text).toBe(503);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.type).toBe('urn:toolgate:problem:unavailable');
    expect(response.body.detail).toMatch(/Postgres/);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  }

  it('answers 503 at once, naming Postgres, and serves again when it is back', async () => {
    const dev = await developerToken('dev_pg_down');
    expect((await api.request('GET', '/v1/apps', { token: dev })).status).toBe(200);

    await proxy.set('down');
    const read = await timed(() => api.request('GET', '/v1/apps', { token: dev }));
    expectPostgresUnavailable(read.value);
    expect(read.ms).toBeLessThan(1000);
    const body = { name: 'pg-down-app', display_name: 'Shop' };
    const write = await timed(() => api.request('POST', '/v1/apps', { token: dev, body }));
    expectPostgresUnavailable(write.value);
    expect(write.ms).toBeLessThan(1000);

    await proxy.set('up');
    await eventually(async () => expect((await listApps(dev)).status).toBe(200), { timeoutMs: 5000, intervalMs: 100 });
  }, 30_000);

  it('sends no instant call while Postgres is away: a call is on record before its webhook leaves', async () => {
    const path = '/pg-down-instant';
    const ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url(path) })]);
    handler.secrets = [ctx.app.webhook_secret];
    const body = { tool: agentFacingName(ctx.app), dialog_id: 'd', arguments: { customer_id: 'c' } };
    const call = () => timed(() => api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body }));
    expect((await call()).value.status).toBe(200);

    const sent = handler.at(path).length;
    await proxy.set('down');
    for (let i = 0; i < 3; i++) {
      const refused = await call();
      expectPostgresUnavailable(refused.value);
      expect(refused.ms).toBeLessThan(1000);
    }
    expect(handler.at(path)).toHaveLength(sent);

    await proxy.set('up');
    await eventually(async () => expect((await call()).value.status).toBe(200), { timeoutMs: 5000, intervalMs: 100 });
  }, 30_000);

  it('answers 503 within the connection and query timeouts when Postgres stops answering', async () => {
    const dev = await developerToken('dev_pg_silent');
    // Several requests at once: the pool holds open connections, which then go silent too.
    const warm = await Promise.all(Array.from({ length: 4 }, () => api.request('GET', '/v1/apps', { token: dev })));
    expect(warm.map((r) => r.status)).toEqual([200, 200, 200, 200]);

    await proxy.set('silent');
    const answers = await timed(() => Promise.all(Array.from({ length: 6 }, () => listApps(dev))));
    for (const answer of answers.value) expectPostgresUnavailable(answer);
    expect(answers.ms).toBeLessThan(DATABASE_TIMEOUTS.answerMs + 3000);

    await proxy.set('up');
    await eventually(async () => expect((await listApps(dev)).status).toBe(200), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
  }, 40_000);

  it("answers agents' calls 503 within the connection timeout while their writes wait behind silent ones", async () => {
    const ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url('/pg-silent') })]);
    const body = { tool: agentFacingName(ctx.app), dialog_id: 'd', arguments: { customer_id: 'c' } };
    const call = () => timed(() => api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body }));
    expect((await call()).value.status).toBe(200); // the toolset is cached: only the call's INSERT needs Postgres

    await proxy.set('silent');
    const answers = await Promise.all(Array.from({ length: 6 }, call));
    for (const answer of answers) expectPostgresUnavailable(answer.value);
    // Two INSERTs go out and wait for an answer (the query timeout); the other calls wait for a turn, at most
    // the connection timeout, instead of queueing behind them.
    const waitedForATurn = answers.filter((answer) => answer.ms < DATABASE_TIMEOUTS.connectMs + 1500);
    expect(waitedForATurn.length, JSON.stringify(answers.map((answer) => answer.ms))).toBeGreaterThanOrEqual(4);

    await proxy.set('up');
    await eventually(async () => expect((await call()).value.status).toBe(200), { timeoutMs: 10_000, intervalMs: 200 });
  }, 40_000);
});

describe('while the JWKS URL is down', () => {
  let jwks: Server;
  let jwksState: 'up' | 'failing' = 'up';
  let api: TestApi;
  let api2: TestApi;
  let sign: (claims: Record<string, unknown>) => Promise<string>;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    sign = (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setAudience('toolgate')
        .setExpirationTime('5m')
        .sign(pair.privateKey);
    jwks = createServer((_, res) => {
      if (jwksState === 'failing') res.writeHead(502).end('bad gateway');
      else res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const { port } = jwks.address() as { port: number };
    api = await startTestApi({ AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`, AUTH_JWT_SECRET: '' });
    const nobodyListens = `http://127.0.0.1:${await freePort()}/.well-known/jwks.json`;
    api2 = await startTestApi({ AUTH_JWKS_URL: nobodyListens, AUTH_JWT_SECRET: '' });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await api2?.close();
    jwks?.close();
  });

  it('answers 503 naming the key set, not 401, when nothing listens at the URL', async () => {
    const answer = await timed(() => api2.request('GET', '/v1/apps', { token: '' }));
    expect(answer.value.status).toBe(401); // no token at all: still the caller's fault
    const token = await sign({ role: 'developer', sub: 'dev_jwks_down' });
    const refused = await timed(() => api2.request('GET', '/v1/apps', { token }));
    expect(refused.value.status, refused.value.text).toBe(503);
    expect(refused.value.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.value.body.detail).toMatch(/AUTH_JWKS_URL/);
    expect(refused.ms).toBeLessThan(1000);
  });

  it('answers 503 when the key set answers with an error, and 200 once it is back', async () => {
    jwksState = 'failing';
    const token = await sign({ role: 'developer', sub: 'dev_jwks_failing' });
    const refused = await api.request('GET', '/v1/apps', { token });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.detail).toMatch(/AUTH_JWKS_URL/);
    jwksState = 'up';
    expect((await api.request('GET', '/v1/apps', { token })).status).toBe(200);
  });
});
