// An agent with 100 tools: its list comes from a per-replica cache that every replica drops when
// the agent's tools change (generation counter in Redis).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { agentWithTools, httpTool } from '../support/fixtures.js';
import { type TestApi, startTestApi } from '../support/test-api.js';

let a: TestApi;
let b: TestApi;

beforeAll(async () => {
  a = await startTestApi();
  b = await startTestApi({}, a); // a second replica: same database and Redis prefix
});
afterAll(async () => {
  await b.close();
  await a.close();
});

describe('the tool list of an agent with 100 tools', () => {
  it('is served from the cache, and changes on every replica once a tool changes (heard on Redis)', async () => {
    const tools = Array.from({ length: 100 }, (_, i) =>
      httpTool({ name: `tool_${i}`, handler_url: `https://example.com/${i}` }),
    );
    // `auto`: the test is about the cache; changes reach the agent without the project's approval (decision 032).
    const ctx = await agentWithTools(a, tools, { approveChanges: 'auto' });
    const list = (api: TestApi) => api.request('GET', `${ctx.base}/tools`, { token: ctx.agent });
    const first = await list(b);
    expect(first.body.data).toHaveLength(100);
    expect(first.body.data[0].description).toBe('[App "Shop"] Ищет клиента по номеру');

    // A change behind Toolgate's back is not seen: the list comes from the cache.
    await a.sql("UPDATE http_tools SET description_ru = 'changed in the database only' WHERE name = 'tool_0'");
    expect((await list(b)).body.data[0].description).toBe('[App "Shop"] Ищет клиента по номеру');

    // A change through the API on replica A reaches replica B's next read.
    const toolId = ctx.tools[1].id;
    const patched = await a.request('PATCH', `/v1/apps/${ctx.app.id}/tools/${toolId}`, {
      token: ctx.dev,
      body: { agent_description: 'New words for the model' },
    });
    expect(patched.status).toBe(200);
    // Replica B hears of the change on Redis's channel, a moment after A's answer.
    await eventually(async () => {
      const afterPatch = (await list(b)).body.data;
      expect(afterPatch[1].description).toBe('[App "Shop"] New words for the model');
      expect(afterPatch[0].description).toBe('[App "Shop"] changed in the database only');
    });

    const instance = ctx.instances[2];
    await a.request('PATCH', `/v1/projects/${ctx.projectId}/agents/${ctx.agentId}/tool-instances/${instance.id}`, {
      token: ctx.project,
      body: { enabled: false },
    });
    await eventually(async () => expect((await list(b)).body.data).toHaveLength(99));

    await a.request('PATCH', `/v1/apps/${ctx.app.id}`, { token: ctx.dev, body: { display_name: 'Renamed Shop' } });
    await eventually(async () => expect((await list(b)).body.data[0].description).toMatch(/^\[App "Renamed Shop"\]/));

    await a.request('PUT', `/v1/apps/${ctx.app.id}/agent-tools`, {
      token: ctx.dev,
      body: { enabled: false, mode: 'constructor' },
    });
    await eventually(async () => expect((await list(b)).body.data).toHaveLength(0));
  }, 60_000);
});
