// The worker prunes finished calls older than CALL_RETENTION_DAYS, with their attempts, in batches; active calls stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { WebhookHandler } from './support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  handler.on('/hang', () => ({ status: 200, hang: true }));
  stack = await startTestStack({ PURGE_INTERVAL_MS: '200', CALL_RETENTION_DAYS: '30' }, { worker: false });
});
afterAll(async () => {
  await handler.stop(); // releases the held attempt first: the worker's shutdown does not wait for it
  await stack.close();
});

const OLD_SYNTHETIC = 1_200; // more than two batches of 500

describe('call retention', () => {
  it('prunes finished calls older than CALL_RETENTION_DAYS with their attempts, keeps recent and active calls', async () => {
    const ctx = await agentWithTools(stack.api, [
      httpTool({ handler_url: handler.url('/ok') }),
      httpTool({
        name: 'slow_job',
        handler_url: handler.url('/hang'),
        execution_mode: 'background',
        retry_window: '5m',
        attempt_timeout_s: 30,
      }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    const call = async (tool: string) => {
      const response = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
        token: ctx.agent,
        body: { tool: agentFacingName(ctx.app, tool), dialog_id: 'd', arguments: { customer_id: 'c' } },
      });
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
      return response.body.call_id as string;
    };
    const oldReal = await call('find_customer');
    const recent = await call('find_customer');
    const active = await call('slow_job'); // no worker yet: queued, and then held by the hanging handler
    const sql = stack.api.sql.bind(stack.api);
    await sql(
      `UPDATE tool_calls SET finished_at = now() - interval '31 days', accepted_at = now() - interval '31 days' WHERE id = $1`,
      [oldReal],
    );
    await sql(
      `UPDATE tool_calls SET finished_at = now() - interval '29 days', accepted_at = now() - interval '29 days' WHERE id = $1`,
      [recent],
    );
    await sql(`UPDATE tool_calls SET accepted_at = now() - interval '60 days' WHERE id = $1`, [active]);
    // Synthetic old finished calls of every final status, each with an attempt; and an active one carrying an old finished_at.
    const columns = `app_id, installation_id, project_id, agent_id, tool_instance_id, tool_kind, tool_name, agent_tool_name,
      dialog_id, execution_mode, attempt_timeout_s, arguments`;
    await sql(
      `INSERT INTO tool_calls (id, event_id, ${columns}, status, accepted_at, finished_at, updated_at)
      SELECT 'tc_old_' || n, 'evt_old_' || n, ${columns}, (ARRAY['succeeded', 'failed', 'cancelled'])[1 + n % 3],
             now() - interval '40 days', now() - interval '31 days' - n * interval '1 second', now()
      FROM tool_calls, generate_series(1, ${OLD_SYNTHETIC}) AS n WHERE id = $1`,
      [oldReal],
    );
    await sql(`INSERT INTO tool_call_attempts (id, call_id, n, started_at, duration_ms, outcome)
      SELECT 'att_old_' || n, 'tc_old_' || n, 1, now() - interval '31 days', 5, 'success' FROM generate_series(1, ${OLD_SYNTHETIC}) AS n`);
    await sql(
      `INSERT INTO tool_calls (id, event_id, ${columns}, status, round, accepted_at, finished_at, updated_at)
      SELECT 'tc_replayed', 'evt_replayed', ${columns}, 'queued', 2, now() - interval '90 days', now() - interval '90 days', now()
      FROM tool_calls WHERE id = $1`,
      [oldReal],
    );

    const oldIds = `id LIKE 'tc_old_%' OR id = '${oldReal}'`;
    const count = async (where: string) =>
      (await sql(`SELECT count(*)::int AS n FROM tool_calls WHERE ${where}`))[0].n as number;
    const oldAttempts = async () =>
      (
        await sql(`SELECT count(*)::int AS n FROM tool_call_attempts WHERE call_id LIKE 'tc_old_%' OR call_id = $1`, [
          oldReal,
        ])
      )[0].n as number;
    expect(await count(oldIds)).toBe(OLD_SYNTHETIC + 1);
    expect(await oldAttempts()).toBe(OLD_SYNTHETIC + 1);

    await stack.startWorker();
    await eventually(async () => expect(await count(oldIds)).toBe(0), { intervalMs: 100 });
    expect(await oldAttempts()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 600)); // a few more purge runs

    const left = await sql(`SELECT id, status FROM tool_calls WHERE id = ANY($1) ORDER BY id`, [
      [recent, active, 'tc_replayed'],
    ]);
    expect(Object.fromEntries(left.map((row) => [row.id, row.status]))).toEqual({
      [recent]: 'succeeded',
      [active]: expect.stringMatching(/^(queued|in_progress)$/),
      tc_replayed: 'queued',
    });
    expect((await sql(`SELECT count(*)::int AS n FROM tool_call_attempts WHERE call_id = $1`, [recent]))[0].n).toBe(1);
    const page = await stack.api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls`, { token: ctx.dev });
    expect(page.status).toBe(200);
    expect((page.body.data as { id: string }[]).map((c) => c.id).sort()).toEqual(
      [recent, active, 'tc_replayed'].sort(),
    );
  });
});
