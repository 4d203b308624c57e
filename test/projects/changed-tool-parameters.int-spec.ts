// A developer changes a tool's parameters under instances configured for the old ones: an instance whose
// configured_parameters no longer fit is marked needs_configuration (the project reads why; the agent is not offered
// the tool and a call is 409 saying why) instead of refusing every call's arguments; configured again, it is active.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWithHandlerTool, giveAppToAgent } from '../support/fixtures.js';
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

const customerId = (type: string) => ({
  name: 'customer_id',
  type,
  description: 'The customer number',
  required: true,
});
const restricted = (type: string, allowed: unknown[]) => [
  { name: 'customer_id', type, description: 'One of our two customers', required: true, allowed_values: allowed },
];

describe("a change of a tool's parameters", () => {
  it('marks the instances it no longer fits needs_configuration, until they are configured again', async () => {
    const ctx = await agentWithHandlerTool(
      api,
      handler,
      { configurable: true, parameters: [customerId('string')] },
      // `auto`: the agents take the new parameters at once; the project's approval is another test's (decision 032).
      {
        instances: { find_customer: { configured_parameters: restricted('string', ['c1', 'c2']) } },
        approveChanges: 'auto',
      },
    );
    const unconfigured = await giveAppToAgent(api, ctx.app.id, ['find_customer'], { approveChanges: 'auto' });
    expect((await ctx.call()).body.status).toBe('succeeded');
    const instances = `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}/tool-instances`;
    const instanceOf = async (owner: { projectId: string; agentId: string; project: string }) => {
      const url = `/v1/projects/${owner.projectId}/agents/${owner.agentId}/tool-instances`;
      return (await api.request('GET', url, { token: owner.project })).body.data[0];
    };
    const patchTool = (parameters: unknown[]) =>
      api.request('PATCH', `/v1/apps/${ctx.app.id}/tools/${ctx.tools[0].id}`, { token: ctx.dev, body: { parameters } });

    // customer_id becomes a number: the configured string values can never match an argument again
    expect((await patchTool([customerId('number')])).status).toBe(200);
    const marked = await instanceOf(ctx);
    expect(marked).toMatchObject({
      status: 'needs_configuration',
      configuration_problem:
        "the tool's parameters changed and this instance's configured_parameters no longer fit them " +
        '(configured_parameters.0.type: "customer_id" is a number parameter; ' +
        'configured_parameters.0.allowed_values.0: must be a number, like the parameter; ' +
        'configured_parameters.0.allowed_values.1: must be a number, like the parameter)',
    });
    expect(await instanceOf(unconfigured)).toMatchObject({ status: 'active', configuration_problem: null });

    const listed = await api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
    expect(listed.body.data).toEqual([]);
    const sent = handler.at(ctx.path).length;
    const refused = await ctx.call({ arguments: { customer_id: 1 } });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('configured_parameters no longer fit them');
    expect(refused.body.detail).toContain('open its configurator to fix it');
    expect(handler.at(ctx.path)).toHaveLength(sent);

    // the configurator saves the instance for the new parameters: active again, and called
    const configured = await api.request('PATCH', `${instances}/${marked.id}`, {
      token: ctx.project,
      body: { configured_parameters: restricted('number', [1, 2]) },
    });
    expect(configured.body).toMatchObject({ status: 'active', configuration_problem: null });
    const called = await ctx.call({ arguments: { customer_id: 1 } });
    expect(called.body, JSON.stringify(called.body)).toMatchObject({ status: 'succeeded' });
    expect(handler.at(ctx.path)).toHaveLength(sent + 1);

    // a change it still fits leaves it active
    const note = { name: 'note', type: 'string', description: 'A note', required: false };
    expect((await patchTool([customerId('number'), note])).status).toBe(200);
    expect(await instanceOf(ctx)).toMatchObject({ status: 'active', configuration_problem: null });
  });
});
