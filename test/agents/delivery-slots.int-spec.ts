// An app's delivery slot is held while its handler works, not while the attempt is recorded: with one slot per
// app, the next call of the app goes out while the record of the one before is held up in Postgres.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ APP_DELIVERY_CONCURRENCY: '1' });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

it("frees the app's slot once its handler answered: the next call goes out while the last record waits", async () => {
  const ctx = await agentWithTools(stack.api, [
    httpTool({ handler_url: handler.url('/slot'), execution_mode: 'background', retry_window: '5m' }),
  ]);
  handler.secrets = [ctx.app.webhook_secret];
  handler.on('/slot', () => ({ status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } }));
  const call = async () => {
    const accepted = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: agentFacingName(ctx.app), dialog_id: 'd', arguments: { customer_id: 'c' } },
    });
    expect(accepted.status).toBe(202);
    return accepted.body.call_id as string;
  };

  // A lock on the first call's row, taken while its handler holds it for a second (after the claim, before the record).
  const locker = new pg.Client({
    connectionString: stack.api.directUrl,
    options: `-c search_path=${stack.api.schema}`,
  });
  await locker.connect();
  try {
    handler.on('/slot', () => ({ status: 200, body: '{"ok":true}', delayMs: 1000 }));
    const first = await call();
    await eventually(() => expect(handler.at('/slot')).toHaveLength(1), { intervalMs: 5 });
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM tool_calls WHERE id = $1 FOR UPDATE', [first]);
    handler.on('/slot', () => ({ status: 200, body: '{"ok":true}' }));

    const second = await call();
    await eventually(() => expect(handler.at('/slot')).toHaveLength(2), { timeoutMs: 3000, intervalMs: 10 });
    // The first call's record is still waiting for the lock.
    const { rows } = await locker.query('SELECT status FROM tool_calls WHERE id = $1', [first]);
    expect(rows).toEqual([{ status: 'in_progress' }]);
    await locker.query('COMMIT');

    for (const id of [first, second]) {
      await eventually(async () => {
        const [row] = await stack.api.sql('SELECT status FROM tool_calls WHERE id = $1', [id]);
        expect(row.status).toBe('succeeded');
      });
    }
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end();
  }
});
