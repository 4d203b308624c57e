// Webhook secrets over time: every secret still inside its 24 h signs, rotations racing each
// other hand out only secrets that sign, and the number signing at once is bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFacingName, agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestApi, startTestApi } from '../support/test-api.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let api: TestApi;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
  await handler.stop();
});

async function setup() {
  const path = `/hook/${Math.random().toString(36).slice(2)}`;
  const ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url(path), execution_mode: 'instant' })]);
  const rotate = () => api.request('POST', `/v1/apps/${ctx.app.id}/webhook-secret/rotate`, { token: ctx.dev });
  /** Makes a call with the handler knowing `secrets`; gives the signatures sent and which secrets verified them. */
  const deliver = async (secrets: string[]) => {
    handler.secrets = secrets;
    const before = handler.at(path).length;
    const call = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: {
        tool: agentFacingName(ctx.app),
        dialog_id: 'd',
        arguments: { customer_id: 'c' },
      },
    });
    expect(call.body.status, JSON.stringify(call.body)).toBe('succeeded');
    const webhook = handler.at(path)[before];
    return {
      signatures: (webhook.headers['x-webhook-signature'] as string).split(' '),
      verifiedWith: webhook.verifiedWith,
    };
  };
  return { ...ctx, rotate, deliver };
}

describe('two rotations within 24 hours', () => {
  it('keep every secret inside its 24 h signing, each signature verifying on its own, until it expires', async () => {
    const ctx = await setup();
    const first = await ctx.rotate();
    const second = await ctx.rotate();
    expect([first.status, second.status]).toEqual([200, 200]);
    const secrets = [second.body.webhook_secret, first.body.webhook_secret, ctx.app.webhook_secret];

    const sent = await ctx.deliver(secrets);
    expect(sent.signatures).toHaveLength(3);
    expect(sent.verifiedWith).toEqual([0, 1, 2]);
    for (const secret of secrets) expect((await ctx.deliver([secret])).verifiedWith).toEqual([0]);

    // The first secret's 24 h are over (moved back in the database; a PATCH drops the cached app row).
    await api.sql(
      `UPDATE apps SET retired_webhook_secrets = (
         SELECT jsonb_agg(CASE WHEN s->>'valid_until' = $2
                          THEN jsonb_set(s, '{valid_until}', '"2000-01-01T00:00:00.000Z"') ELSE s END)
         FROM jsonb_array_elements(retired_webhook_secrets) s) WHERE id = $1`,
      [ctx.app.id, first.body.previous_valid_until],
    );
    await api.request('PATCH', `/v1/apps/${ctx.app.id}`, { token: ctx.dev, body: { display_name: 'Shop' } });
    const later = await ctx.deliver(secrets);
    expect(later.signatures).toHaveLength(2);
    expect(later.verifiedWith).toEqual([0, 1]);
  });
});

describe('rotations at the same time', () => {
  it('hand out only secrets that sign', async () => {
    const ctx = await setup();
    const rotations = await Promise.all([1, 2, 3, 4, 5].map(() => ctx.rotate()));
    expect(rotations.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const issued = rotations.map((r) => r.body.webhook_secret as string);
    expect(new Set(issued).size).toBe(5);
    const sent = await ctx.deliver(issued);
    expect(sent.verifiedWith).toEqual([0, 1, 2, 3, 4]);
    expect(sent.signatures).toHaveLength(6);
  });
});

describe('more rotations than secrets may sign at once', () => {
  it('are refused with 409 saying when the next one is allowed', async () => {
    const ctx = await setup();
    const validUntil: string[] = [];
    let current = '';
    for (let i = 0; i < 9; i += 1) {
      const rotated = await ctx.rotate();
      expect(rotated.status).toBe(200);
      validUntil.push(rotated.body.previous_valid_until);
      current = rotated.body.webhook_secret;
    }
    const refused = await ctx.rotate();
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
    expect(refused.body.detail).toContain('10 webhook secrets');
    expect(refused.body.detail).toContain(validUntil[0]);
    expect((await ctx.deliver([current])).signatures).toHaveLength(10);
  });
});
