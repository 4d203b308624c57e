import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../libs/domain/src/index.js';
import { httpTool } from '../support/fixtures.js';
import { type TestApi, startTestApi } from '../support/test-api.js';
import { developerToken } from '../support/tokens.js';

let api: TestApi;
let alice: string;
let bob: string;
let n = 0;

beforeAll(async () => {
  api = await startTestApi();
  alice = await developerToken('dev_alice');
  bob = await developerToken('dev_bob');
});
afterAll(() => api.close());

async function createApp(options: { embeddedPage?: boolean } = {}) {
  const response = await api.request('POST', '/v1/apps', {
    token: alice,
    body: { name: `tools-${process.pid}-${++n}`.slice(0, 24), display_name: 'Shop' },
  });
  expect(response.status).toBe(201);
  if (options.embeddedPage) {
    await api.request('PATCH', `/v1/apps/${response.body.id}`, {
      token: alice,
      body: { embedded_page_url: 'https://shop.example.com/configure' },
    });
  }
  return response.body as { id: string; name: string };
}

const validTool = httpTool;

/** Gives `count` agents' instances of a tool, as projects will (seeded: the project routes come with the pipeline). */
/** Instances of the tool for `agents`, in a new project of their own that installed the app; its installation id. */
async function seedInstances(appId: string, toolId: string, agents: string[], installed?: string) {
  const installationId = installed ?? newId('inst');
  if (!installed) {
    await api.sql('INSERT INTO installations (id, project_id, app_id) VALUES ($1, $2, $3)', [
      installationId,
      `p_${installationId}`,
      appId,
    ]);
  }
  for (const agentId of agents) {
    await api.sql(
      `INSERT INTO tool_instances (id, project_id, agent_id, installation_id, app_id, tool_kind, tool_name, http_tool_id, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'http', 'find_customer', $6, now())`,
      [newId('ti'), `p_${installationId}`, agentId, installationId, appId, toolId],
    );
  }
  return installationId;
}

describe('creating HTTP tools', () => {
  it('creates a tool with every field and reads it back', async () => {
    const app = await createApp({ embeddedPage: true });
    const body = validTool({
      response_description: { ru: 'Карточка клиента', en: 'The customer card' },
      agent_description: 'Look a customer up by number.',
      configurable: true,
      allow_multiple: true,
      execution_mode: 'wait',
      retry_window: '3h',
      attempt_timeout_s: 60,
    });
    const created = await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      ...body,
      id: expect.stringMatching(/^tool_/),
      app_id: app.id,
      installations_on_older_definition: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const read = await api.request('GET', `/v1/apps/${app.id}/tools/${created.body.id}`, { token: alice });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('fills the defaults: no parameters, not configurable, 30 s timeout, optional texts null', async () => {
    const app = await createApp();
    const { parameters: _p, attempt_timeout_s: _t, ...minimal } = validTool();
    const created = await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: minimal });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      parameters: [],
      configurable: false,
      allow_multiple: false,
      attempt_timeout_s: 30,
      retry_window: null,
      response_description: null,
      agent_description: null,
    });
  });

  it('refuses a second tool with the same name in the app (409), but not in another app', async () => {
    const app = await createApp();
    expect((await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool() })).status).toBe(
      201,
    );
    const again = await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool() });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already has a tool named "find_customer"/);
    const other = await createApp();
    expect((await api.request('POST', `/v1/apps/${other.id}/tools`, { token: alice, body: validTool() })).status).toBe(
      201,
    );
  });

  it('refuses a configurable tool while the app has no embedded page (409)', async () => {
    const app = await createApp();
    const response = await api.request('POST', `/v1/apps/${app.id}/tools`, {
      token: alice,
      body: validTool({ configurable: true }),
    });
    expect(response.status).toBe(409);
    expect(response.body.detail).toMatch(/embedded_page_url/);
  });

  const parameter = (overrides: Record<string, unknown> = {}) => ({
    name: 'p',
    type: 'string',
    description: 'd',
    required: false,
    ...overrides,
  });

  it.each([
    ['name', { name: 'Find' }],
    ['name', { name: '1find' }],
    ['name', { name: 'find__customer' }],
    ['name', { name: 'find-customer' }],
    ['name', { name: 'a'.repeat(37) }],
    ['name', { name: undefined }],
    ['title.en', { title: { ru: 'Найти' } }],
    ['title.ru', { title: { ru: '', en: 'Find' } }],
    ['title.en', { title: { ru: 'Найти', en: 'x'.repeat(101) } }],
    ['title.de', { title: { ru: 'Найти', en: 'Find', de: 'Finden' } }],
    ['description.ru', { description: { en: 'Finds' } }],
    ['description.en', { description: { ru: 'Ищет', en: 'x'.repeat(1001) } }],
    ['response_description.en', { response_description: { ru: 'Ответ' } }],
    ['agent_description', { agent_description: '' }],
    ['agent_description', { agent_description: 'x'.repeat(2001) }],
    ['handler_url', { handler_url: 'ftp://shop.example.com' }],
    ['handler_url', { handler_url: 'https://user:secret@shop.example.com/hook' }],
    ['handler_url', { handler_url: '/relative' }],
    ['parameters', { parameters: Array.from({ length: 33 }, (_, i) => parameter({ name: `p${i}` })) }],
    ['parameters.1.name', { parameters: [parameter({ name: 'a' }), parameter({ name: 'a' })] }],
    ['parameters.0.name', { parameters: [parameter({ name: '1a' })] }],
    ['parameters.0.name', { parameters: [parameter({ name: 'a-b' })] }],
    ['parameters.0.name', { parameters: [parameter({ name: 'a'.repeat(65) })] }],
    ['parameters.0.type', { parameters: [parameter({ type: 'integer' })] }],
    ['parameters.0.description', { parameters: [parameter({ description: '' })] }],
    ['parameters.0.description', { parameters: [parameter({ description: 'x'.repeat(501) })] }],
    ['parameters.0.description', { parameters: [parameter({ description: { ru: 'д', en: 'd' } })] }],
    ['parameters.0.required', { parameters: [parameter({ required: 'yes' })] }],
    ['allow_multiple', { allow_multiple: true }],
    ['execution_mode', { execution_mode: 'later' }],
    ['attempt_timeout_s', { attempt_timeout_s: 15 }],
    ['retry_window', { execution_mode: 'wait' }],
    ['retry_window', { execution_mode: 'background' }],
    ['retry_window', { execution_mode: 'instant', retry_window: '5m' }],
    ['retry_window', { execution_mode: 'wait', retry_window: '2h' }],
    ['configurable', { configurable: 'true' }],
  ])('refuses at %s: %j (422)', async (path, overrides) => {
    const app = await createApp();
    const response = await api.request('POST', `/v1/apps/${app.id}/tools`, {
      token: alice,
      body: validTool(overrides),
    });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    expect(response.body.errors[0].message).toEqual(expect.any(String));
  });

  it('accepts the boundaries: 32 parameters, 36-character name, 64-character parameter name, every timeout and window', async () => {
    const app = await createApp();
    const params = Array.from({ length: 32 }, (_, i) =>
      parameter({ name: i === 0 ? 'a'.repeat(64) : `p${i}`, description: 'x'.repeat(500) }),
    );
    const boundary = await api.request('POST', `/v1/apps/${app.id}/tools`, {
      token: alice,
      body: validTool({
        name: 'a'.repeat(36),
        parameters: params,
        title: { ru: 'т'.repeat(100), en: 't'.repeat(100) },
        agent_description: 'x'.repeat(2000),
      }),
    });
    expect(boundary.status).toBe(201);
    for (const [i, timeout] of [10, 30, 60, 120].entries()) {
      for (const window of ['5m', '3h', '1d']) {
        const response = await api.request('POST', `/v1/apps/${app.id}/tools`, {
          token: alice,
          body: validTool({
            name: `t_${i}_${window}`,
            execution_mode: 'background',
            retry_window: window,
            attempt_timeout_s: timeout,
          }),
        });
        expect(response.status).toBe(201);
      }
    }
  });
});

describe('listing, updating and deleting HTTP tools', () => {
  it('lists the app tools with a cursor', async () => {
    const app = await createApp();
    const ids = [];
    for (const name of ['a', 'b', 'c']) {
      ids.push(
        (await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool({ name }) })).body.id,
      );
    }
    const first = await api.request('GET', `/v1/apps/${app.id}/tools?limit=2`, { token: alice });
    expect(first.body.data.map((t: { id: string }) => t.id)).toEqual(ids.slice(0, 2));
    const second = await api.request('GET', `/v1/apps/${app.id}/tools?limit=2&cursor=${first.body.next_cursor}`, {
      token: alice,
    });
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids[2], name: 'c' })], next_cursor: null });
  });

  it('changes any field but name; the merged tool is checked as a whole', async () => {
    const app = await createApp();
    const tool = (await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool() })).body;
    const patch = (body: unknown) =>
      api.request('PATCH', `/v1/apps/${app.id}/tools/${tool.id}`, { token: alice, body });

    const toWait = await patch({
      execution_mode: 'wait',
      retry_window: '5m',
      attempt_timeout_s: 120,
      title: { ru: 'Новое', en: 'New' },
    });
    expect(toWait.status).toBe(200);
    expect(toWait.body).toMatchObject({
      name: 'find_customer',
      execution_mode: 'wait',
      retry_window: '5m',
      attempt_timeout_s: 120,
      title: { ru: 'Новое', en: 'New' },
    });
    expect(toWait.body.parameters).toEqual(tool.parameters);

    const missingWindow = await patch({ retry_window: null });
    expect(missingWindow.status).toBe(422);
    expect(missingWindow.body.errors.map((e: { path: string }) => e.path)).toEqual(['retry_window']);

    const toInstant = await patch({ execution_mode: 'instant' });
    expect(toInstant.body).toMatchObject({ execution_mode: 'instant', retry_window: null });

    const instantWithWindow = await patch({ execution_mode: 'instant', retry_window: '1d' });
    expect(instantWithWindow.status).toBe(422);

    const rename = await patch({ name: 'other' });
    expect(rename.status).toBe(422);
    expect(rename.body.errors).toEqual([{ path: 'name', message: expect.stringMatching(/fixed once created/) }]);

    const badParams = await patch({
      parameters: [
        { name: 'x', type: 'string', description: 'd' },
        { name: 'x', type: 'number', description: 'd' },
      ],
    });
    expect(badParams.status).toBe(422);
    expect(badParams.body.errors.map((e: { path: string }) => e.path)).toEqual(['parameters.1.name']);

    const cleared = await patch({ agent_description: 'For the model', response_description: { ru: 'о', en: 'r' } });
    expect(cleared.body).toMatchObject({
      agent_description: 'For the model',
      response_description: { ru: 'о', en: 'r' },
    });
    expect((await patch({ agent_description: null, response_description: null })).body).toMatchObject({
      agent_description: null,
      response_description: null,
    });

    const multipleWithoutConfigurable = await patch({ allow_multiple: true });
    expect(multipleWithoutConfigurable.status).toBe(422);
    expect(multipleWithoutConfigurable.body.errors.map((e: { path: string }) => e.path)).toEqual(['allow_multiple']);
  });

  it('refuses to make a tool configurable while the app has no embedded page (409)', async () => {
    const app = await createApp();
    const tool = (await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool() })).body;
    const response = await api.request('PATCH', `/v1/apps/${app.id}/tools/${tool.id}`, {
      token: alice,
      body: { configurable: true },
    });
    expect(response.status).toBe(409);
  });

  it('refuses to turn configurable off while any agent has an instance (409)', async () => {
    const app = await createApp({ embeddedPage: true });
    const tool = (
      await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool({ configurable: true }) })
    ).body;
    const patch = (body: unknown) =>
      api.request('PATCH', `/v1/apps/${app.id}/tools/${tool.id}`, { token: alice, body });
    await seedInstances(app.id, tool.id, ['agent_1']);
    const refused = await patch({ configurable: false });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/configurable cannot be turned off while agents have 1 instance/);
    expect((await patch({ title: { ru: 'т', en: 't' } })).status).toBe(200);
    await api.sql('DELETE FROM tool_instances WHERE http_tool_id = $1', [tool.id]);
    expect((await patch({ configurable: false })).status).toBe(200);
  });

  it('refuses to turn allow_multiple off while an agent has more than one instance (409)', async () => {
    const app = await createApp({ embeddedPage: true });
    const tool = (
      await api.request('POST', `/v1/apps/${app.id}/tools`, {
        token: alice,
        body: validTool({ configurable: true, allow_multiple: true }),
      })
    ).body;
    const patch = (body: unknown) =>
      api.request('PATCH', `/v1/apps/${app.id}/tools/${tool.id}`, { token: alice, body });
    const installation = await seedInstances(app.id, tool.id, ['agent_1', 'agent_2']);
    expect((await patch({ allow_multiple: false })).status).toBe(200);
    expect((await patch({ allow_multiple: true })).status).toBe(200);
    // An agent of another project that has the same id is another agent: one instance each is not "multiple".
    await seedInstances(app.id, tool.id, ['agent_1']);
    expect((await patch({ allow_multiple: false })).status).toBe(200);
    expect((await patch({ allow_multiple: true })).status).toBe(200);
    await seedInstances(app.id, tool.id, ['agent_1'], installation);
    const refused = await patch({ allow_multiple: false });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/an agent has 2 instances/);
  });

  it('refuses to remove the embedded page while the app has configurable tools (409)', async () => {
    const app = await createApp({ embeddedPage: true });
    await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool({ configurable: true }) });
    const response = await api.request('PATCH', `/v1/apps/${app.id}`, {
      token: alice,
      body: { embedded_page_url: null },
    });
    expect(response.status).toBe(409);
  });

  it('deletes a tool with its instances only with ?confirm=true (428 otherwise)', async () => {
    const app = await createApp({ embeddedPage: true });
    const tool = (
      await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool({ configurable: true }) })
    ).body;
    await seedInstances(app.id, tool.id, ['agent_1']);
    const unconfirmed = await api.request('DELETE', `/v1/apps/${app.id}/tools/${tool.id}`, { token: alice });
    expect(unconfirmed.status).toBe(428);
    const deleted = await api.request('DELETE', `/v1/apps/${app.id}/tools/${tool.id}?confirm=true`, { token: alice });
    expect(deleted.status).toBe(204);
    expect((await api.request('GET', `/v1/apps/${app.id}/tools/${tool.id}`, { token: alice })).status).toBe(404);
    expect(await api.sql('SELECT id FROM tool_instances WHERE http_tool_id = $1', [tool.id])).toEqual([]);
  });

  it("answers 404 for another developer's tool on every tool route", async () => {
    const app = await createApp();
    const tool = (await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool() })).body;
    const base = `/v1/apps/${app.id}/tools/${tool.id}`;
    for (const [method, path, body] of [
      ['GET', base],
      ['PATCH', base, { title: { ru: 'в', en: 'x' } }],
      ['DELETE', `${base}?confirm=true`],
      ['GET', `/v1/apps/${app.id}/tools`],
      ['POST', `/v1/apps/${app.id}/tools`, validTool({ name: 'other' })],
    ] as const) {
      expect((await api.request(method, path, { token: bob, body })).status, `${method} ${path}`).toBe(404);
    }
    expect((await api.request('GET', base, { token: alice })).body.title).toEqual(tool.title);
  });

  it('removes the tools with their app', async () => {
    const app = await createApp();
    const tool = (await api.request('POST', `/v1/apps/${app.id}/tools`, { token: alice, body: validTool() })).body;
    await api.request('DELETE', `/v1/apps/${app.id}?confirm=true`, { token: alice });
    expect(await api.sql('SELECT id FROM http_tools WHERE id = $1', [tool.id])).toEqual([]);
  });
});
