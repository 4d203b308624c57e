// The worker purges what has expired, in small batches: idempotency keys and configurator launch codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { WebhookHandler } from './support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ PURGE_INTERVAL_MS: '200' }, { worker: false });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

describe('the worker', () => {
  it('purges expired idempotency keys and launch codes, thousands in batches, and keeps live ones', async () => {
    const ctx = await agentWithTools(stack.api, [httpTool({ handler_url: handler.url('/purge'), configurable: true })]);
    handler.secrets = [ctx.app.webhook_secret];
    const call = (key: string) =>
      stack.api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: {
          tool: agentFacingName(ctx.app),
          dialog_id: 'd',
          arguments: { customer_id: 'c' },
        },
        headers: { 'idempotency-key': key },
      });
    for (const key of ['old-1', 'old-2', 'live-1']) expect((await call(key)).status).toBe(200);
    const launch = () =>
      stack.api.request('POST', `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}/configurator-launches`, {
        token: ctx.project,
        body: { installation_id: ctx.installationId, tool_name: 'find_customer', theme: 'light', language: 'en' },
      });
    const oldLaunch = await launch();
    expect(oldLaunch.status).toBe(201);
    // 24 h (and 10 min) pass for some of them.
    await stack.api.sql("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key LIKE 'old-%'");
    await stack.api.sql("UPDATE launch_codes SET expires_at = now() - interval '1 second'");
    await stack.api.sql(`INSERT INTO idempotency_keys (project_id, agent_id, key, request_hash, created_at, expires_at)
      SELECT 'p_bulk', 'a_bulk', 'k' || n, 'h', now() - interval '2 days', now() - interval '1 day'
      FROM generate_series(1, 2400) AS n`);
    await stack.api.sql(
      `INSERT INTO launch_codes
         (code_hash, app_id, project_id, agent_id, installation_id, tool_name, mode, theme, language, expires_at)
       SELECT 'h' || n, $1, $2, $3, $4, 'find_customer', 'create', 'light', 'en', now() - interval '1 hour'
       FROM generate_series(1, 1200) AS n`,
      [ctx.app.id, ctx.projectId, ctx.agentId, ctx.installationId],
    );
    const liveLaunch = await launch();
    const count = async (table: string) =>
      (await stack.api.sql(`SELECT count(*)::int AS n FROM ${table} WHERE expires_at <= now()`))[0].n as number;
    expect(await count('idempotency_keys')).toBe(2402);
    expect(await count('launch_codes')).toBe(1201);

    await stack.startWorker();
    await eventually(
      async () => {
        expect(await count('idempotency_keys')).toBe(0);
        expect(await count('launch_codes')).toBe(0);
      },
      { intervalMs: 100 },
    );

    const live = await call('live-1');
    expect(live.headers.get('idempotent-replayed')).toBe('true');
    expect(handler.at('/purge')).toHaveLength(3);
    const exchanged = await stack.api.request('POST', `/v1/apps/${ctx.app.id}/launch-codes/exchange`, {
      token: ctx.dev,
      body: { launch_code: liveLaunch.body.launch_code },
    });
    expect(exchanged.status).toBe(200);
    // An expired key is a new key: the call is made again.
    expect((await call('old-1')).headers.get('idempotent-replayed')).toBeNull();
  });
});
