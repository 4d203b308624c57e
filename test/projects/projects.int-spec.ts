import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox, parseSecretKeys } from '../../libs/secrets/src/index.js';
import { createEnabledApp, httpTool } from '../support/fixtures.js';
import { TEST_SECRETS_KEYS, type TestApi, startTestApi } from '../support/test-api.js';
import { developerToken, projectToken } from '../support/tokens.js';

let api: TestApi;
let dev: string;
let project: string;
let otherProject: string;
let projectN = 0;

beforeAll(async () => {
  api = await startTestApi();
  dev = await developerToken('dev_projects');
  project = await projectToken('proj_1');
  otherProject = await projectToken('proj_2');
});
afterAll(() => api.close());

async function install(appId: string, token = project, projectId = 'proj_1') {
  const response = await api.request('POST', `/v1/projects/${projectId}/installations`, {
    token,
    body: { app_id: appId },
  });
  expect(response.status).toBe(201);
  return response.body as { id: string };
}

/** A fresh project (so instance rules do not meet earlier tests' instances). */
async function freshProject() {
  projectN += 1;
  const id = `proj_fresh_${projectN}`;
  return { id, token: await projectToken(id), base: `/v1/projects/${id}` };
}

describe('installations', () => {
  it('installs an app once (409 twice), lists it and refuses an unknown app (404)', async () => {
    const { app } = await createEnabledApp(api, dev);
    const p = await freshProject();
    const first = await api.request('POST', `${p.base}/installations`, { token: p.token, body: { app_id: app.id } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      id: expect.stringMatching(/^inst_/),
      project_id: p.id,
      app_id: app.id,
      app: { name: app.name, display_name: 'Shop' },
    });
    expect(
      (await api.request('POST', `${p.base}/installations`, { token: p.token, body: { app_id: app.id } })).status,
    ).toBe(409);
    const unknown = await api.request('POST', `${p.base}/installations`, {
      token: p.token,
      body: { app_id: 'app_00000000000000000000000000000000' },
    });
    expect(unknown.status).toBe(404);
    const list = await api.request('GET', `${p.base}/installations`, { token: p.token });
    expect(list.body).toEqual({ data: [first.body], next_cursor: null });
  });

  it('uninstalls only with ?confirm=true, removing the instances', async () => {
    const { app } = await createEnabledApp(api, dev, { tools: [httpTool()] });
    const p = await freshProject();
    const installation = (
      await api.request('POST', `${p.base}/installations`, { token: p.token, body: { app_id: app.id } })
    ).body;
    const instance = await api.request('POST', `${p.base}/agents/a1/tool-instances`, {
      token: p.token,
      body: { installation_id: installation.id, tool_name: 'find_customer' },
    });
    expect(instance.status).toBe(201);
    expect((await api.request('DELETE', `${p.base}/installations/${installation.id}`, { token: p.token })).status).toBe(
      428,
    );
    expect(
      (await api.request('DELETE', `${p.base}/installations/${installation.id}?confirm=true`, { token: p.token }))
        .status,
    ).toBe(204);
    expect(await api.sql('SELECT id FROM tool_instances WHERE id = $1', [instance.body.id])).toEqual([]);
  });

  it('lists the installable tools of the current saved mode in the asked language, none while disabled', async () => {
    const { app } = await createEnabledApp(api, dev, {
      tools: [httpTool({ response_description: { ru: 'Карточка', en: 'Card' } })],
    });
    const p = await freshProject();
    const installation = (
      await api.request('POST', `${p.base}/installations`, { token: p.token, body: { app_id: app.id } })
    ).body;
    const en = await api.request('GET', `${p.base}/installations/${installation.id}/tools?lang=en`, { token: p.token });
    expect(en.status).toBe(200);
    expect(en.body.data).toEqual([
      expect.objectContaining({
        name: 'find_customer',
        kind: 'http',
        title: 'Find customer',
        description: 'Finds a customer by number',
        response_description: 'Card',
        execution_mode: 'instant',
      }),
    ]);
    const ru = await api.request('GET', `${p.base}/installations/${installation.id}/tools?lang=ru`, { token: p.token });
    expect(ru.body.data[0]).toMatchObject({ title: 'Найти клиента', response_description: 'Карточка' });
    expect(
      (await api.request('GET', `${p.base}/installations/${installation.id}/tools?lang=de`, { token: p.token })).status,
    ).toBe(422);

    await api.request('PUT', `/v1/apps/${app.id}/agent-tools`, {
      token: dev,
      body: {
        enabled: true,
        mode: 'mcp',
        mcp: { url: 'https://mcp.example.com/mcp', auth_header_value_action: 'clear' },
      },
    });
    expect(
      (await api.request('GET', `${p.base}/installations/${installation.id}/tools`, { token: p.token })).body.data,
    ).toEqual([]);
    await api.request('PUT', `/v1/apps/${app.id}/agent-tools`, {
      token: dev,
      body: { enabled: false, mode: 'constructor' },
    });
    expect(
      (await api.request('GET', `${p.base}/installations/${installation.id}/tools`, { token: p.token })).body.data,
    ).toEqual([]);
  });

  it("answers 404 for another project's installation", async () => {
    const { app } = await createEnabledApp(api, dev);
    const installation = await install(app.id);
    expect(
      (await api.request('GET', `/v1/projects/proj_2/installations/${installation.id}/tools`, { token: otherProject }))
        .status,
    ).toBe(404);
    expect(
      (
        await api.request('DELETE', `/v1/projects/proj_2/installations/${installation.id}?confirm=true`, {
          token: otherProject,
        })
      ).status,
    ).toBe(404);
  });

  it("refuses a token for another project's path (404) and a request without a token (401)", async () => {
    expect((await api.request('GET', '/v1/projects/proj_1/installations', { token: otherProject })).status).toBe(404);
    expect((await api.request('GET', '/v1/projects/proj_1/installations')).status).toBe(401);
  });
});

describe('tool instances', () => {
  const box = new SecretBox(parseSecretKeys(TEST_SECRETS_KEYS));

  async function setup(toolOverrides: Record<string, unknown> = {}) {
    const { app } = await createEnabledApp(api, dev, {
      embeddedPage: true,
      tools: [httpTool({ configurable: true, ...toolOverrides })],
    });
    const p = await freshProject();
    const installation = (
      await api.request('POST', `${p.base}/installations`, { token: p.token, body: { app_id: app.id } })
    ).body;
    const create = (body: Record<string, unknown>, agent = 'a1') =>
      api.request('POST', `${p.base}/agents/${agent}/tool-instances`, {
        token: p.token,
        body: { installation_id: installation.id, tool_name: 'find_customer', ...body },
      });
    return { app, p, installation, create };
  }

  it('creates an instance with configuration and private data that is stored encrypted and never returned', async () => {
    const { p, create } = await setup();
    const response = await create({
      title: 'Store 1',
      configuration: { account_id: 'store-1' },
      configured_parameters: [
        {
          name: 'customer_id',
          type: 'string',
          description: 'A customer of store 1',
          required: true,
          allowed_values: ['c1', 'c2'],
        },
      ],
      private_data: { access_token: 'very-private-token' },
      private_data_required: true,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id: expect.stringMatching(/^ti_/),
      tool_name: 'find_customer',
      title: 'Store 1',
      configuration: { account_id: 'store-1' },
      private_data_set: true,
      private_data_required: true,
      enabled: true,
      status: 'active',
    });
    expect(response.text).not.toContain('very-private-token');
    const [row] = await api.sql('SELECT private_data_enc FROM tool_instances WHERE id = $1', [response.body.id]);
    expect(row.private_data_enc).not.toContain('very-private');
    expect(await box.decryptJson(row.private_data_enc)).toEqual({ access_token: 'very-private-token' });
    const list = await api.request('GET', `${p.base}/agents/a1/tool-instances`, { token: p.token });
    expect(list.body.data).toEqual([response.body]);
    expect(list.text).not.toContain('very-private-token');
  });

  it('preserves, replaces and clears private data; needs_private_data while required and missing', async () => {
    const { p, create } = await setup();
    const instance = (await create({ private_data_required: true })).body;
    expect(instance).toMatchObject({ private_data_set: false, status: 'needs_private_data' });
    const patch = (body: unknown) =>
      api.request('PATCH', `${p.base}/agents/a1/tool-instances/${instance.id}`, { token: p.token, body });

    const replaced = await patch({ private_data_action: 'replace', private_data: { token: 'v1' } });
    expect(replaced.body).toMatchObject({ private_data_set: true, status: 'active' });
    const preserved = await patch({ title: 'Renamed' });
    expect(preserved.body).toMatchObject({ title: 'Renamed', private_data_set: true });
    const [row] = await api.sql('SELECT private_data_enc FROM tool_instances WHERE id = $1', [instance.id]);
    expect(await box.decryptJson(row.private_data_enc)).toEqual({ token: 'v1' });
    const cleared = await patch({ private_data_action: 'clear' });
    expect(cleared.body).toMatchObject({ private_data_set: false, status: 'needs_private_data' });
    const disabled = await patch({ enabled: false });
    expect(disabled.body.status).toBe('disabled');

    expect((await patch({ private_data_action: 'replace' })).status).toBe(422);
    expect((await patch({ private_data_action: 'preserve', private_data: { a: 1 } })).status).toBe(422);
  });

  it('refuses what breaks an instance rule', async () => {
    const { create } = await setup({
      parameters: [
        { name: 'customer_id', type: 'string', description: 'd', required: true },
        { name: 'days', type: 'number', description: 'd', required: false },
      ],
    });
    const big = { blob: 'x'.repeat(64 * 1024) };
    const cases: [Record<string, unknown>, number, string[]?][] = [
      [{ configuration: big }, 422, ['configuration']],
      [{ private_data: big }, 422, ['private_data']],
      [{ title: 'x'.repeat(161) }, 422, ['title']],
      [{ tool_name: 'no_such_tool' }, 422, ['tool_name']],
      [
        { configured_parameters: [{ name: 'nope', type: 'string', description: 'd', required: true }] },
        422,
        ['configured_parameters.0.name'],
      ],
      [
        { configured_parameters: [{ name: 'days', type: 'string', description: 'd', required: true }] },
        422,
        ['configured_parameters.0.type'],
      ],
      [
        {
          configured_parameters: [
            { name: 'days', type: 'number', description: 'd', required: true, allowed_values: [1, 'two'] },
          ],
        },
        422,
        ['configured_parameters.0.allowed_values.1'],
      ],
      [{ configuration: [] }, 422, ['configuration']],
      [{ installation_id: 'inst_00000000000000000000000000000000' }, 404],
    ];
    for (const [body, status, paths] of cases) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      if (paths) expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    }
  });

  it('refuses configuration for a tool that is not configurable (409)', async () => {
    const { app } = await createEnabledApp(api, dev, { tools: [httpTool()] });
    const p = await freshProject();
    const installation = (
      await api.request('POST', `${p.base}/installations`, { token: p.token, body: { app_id: app.id } })
    ).body;
    const create = (body: Record<string, unknown>) =>
      api.request('POST', `${p.base}/agents/a1/tool-instances`, {
        token: p.token,
        body: { installation_id: installation.id, tool_name: 'find_customer', ...body },
      });
    for (const body of [{ configuration: { a: 1 } }, { private_data: { a: 1 } }, { private_data_required: true }]) {
      expect((await create(body)).status).toBe(409);
    }
    expect((await create({ configuration: {} })).status).toBe(201);
  });

  it('allows a second instance per agent only for allow_multiple tools (409 otherwise)', async () => {
    const single = await setup();
    expect((await single.create({})).status).toBe(201);
    expect((await single.create({})).status).toBe(409);
    expect((await single.create({}, 'a2')).status).toBe(201);
    const multiple = await setup({ allow_multiple: true });
    expect((await multiple.create({ title: 'one' })).status).toBe(201);
    expect((await multiple.create({ title: 'two' })).status).toBe(201);
  });

  it("answers 404 for another project's or agent's instance", async () => {
    const { p, create } = await setup();
    const instance = (await create({})).body;
    expect(
      (
        await api.request('PATCH', `${p.base}/agents/a2/tool-instances/${instance.id}`, {
          token: p.token,
          body: { enabled: false },
        })
      ).status,
    ).toBe(404);
    expect(
      (await api.request('DELETE', `${p.base}/agents/a2/tool-instances/${instance.id}`, { token: p.token })).status,
    ).toBe(404);
    expect(
      (
        await api.request('PATCH', `/v1/projects/proj_2/agents/a1/tool-instances/${instance.id}`, {
          token: otherProject,
          body: { enabled: false },
        })
      ).status,
    ).toBe(404);
    expect(
      (await api.request('DELETE', `${p.base}/agents/a1/tool-instances/${instance.id}`, { token: p.token })).status,
    ).toBe(204);
  });

  it("writes nothing for another project: another project's instances, installation and launches are 404", async () => {
    const { p, installation, create } = await setup();
    const instance = (await create({ title: 'mine' })).body;
    const stranger = await freshProject();
    const asStranger = (method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
      api.request(method, `${stranger.base}${path}`, { token: stranger.token, body });
    const mine = { installation_id: installation.id, tool_name: 'find_customer' };
    for (const [method, path, body] of [
      ['PATCH', `/agents/a1/tool-instances/${instance.id}`, { title: 'stolen' }],
      ['DELETE', `/agents/a1/tool-instances/${instance.id}`],
      ['POST', '/agents/a1/tool-instances', mine],
      ['POST', '/agents/a1/configurator-launches', { ...mine, theme: 'dark', language: 'en' }],
      ['DELETE', `/installations/${installation.id}?confirm=true`],
    ] as const) {
      expect((await asStranger(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    const list = await api.request('GET', `${p.base}/agents/a1/tool-instances`, { token: p.token });
    expect(list.body.data).toEqual([instance]);
    expect(await api.sql('SELECT count(*)::int AS n FROM launch_codes WHERE project_id = $1', [stranger.id])).toEqual([
      { n: 0 },
    ]);
  });
});

describe('configurator launches', () => {
  it('gives a URL with a one-time launch code that the developer exchanges within 10 minutes', async () => {
    const { app } = await createEnabledApp(api, dev, { embeddedPage: true, tools: [httpTool({ configurable: true })] });
    const p = await freshProject();
    const installation = (
      await api.request('POST', `${p.base}/installations`, { token: p.token, body: { app_id: app.id } })
    ).body;
    const before = Date.now();
    const launch = await api.request('POST', `${p.base}/agents/a1/configurator-launches`, {
      token: p.token,
      body: { installation_id: installation.id, tool_name: 'find_customer', theme: 'dark', language: 'en' },
    });
    expect(launch.status).toBe(201);
    const url = new URL(launch.body.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://shop.example.com/configure');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      x: '1',
      launch_code: launch.body.launch_code,
      senler_mode: 'tool_configurator',
      senler_theme: 'dark',
      senler_language: 'en',
    });
    const ttl = Date.parse(launch.body.expires_at) - before;
    expect(ttl).toBeGreaterThan(9.9 * 60_000);
    expect(ttl).toBeLessThan(10.1 * 60_000);

    const exchange = () =>
      api.request('POST', `/v1/apps/${app.id}/launch-codes/exchange`, {
        token: dev,
        body: { launch_code: launch.body.launch_code },
      });
    const first = await exchange();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      mode: 'create',
      project_id: p.id,
      agent_id: 'a1',
      installation_id: installation.id,
      tool_name: 'find_customer',
      theme: 'dark',
      language: 'en',
      instance: null,
    });
    expect(first.body.tool.parameters).toHaveLength(2);
    expect((await exchange()).status).toBe(404);
  });

  it('launches in edit mode for an instance, and refuses expired codes, other apps and tools without a configurator', async () => {
    const { app } = await createEnabledApp(api, dev, {
      embeddedPage: true,
      tools: [httpTool({ configurable: true }), httpTool({ name: 'plain' })],
    });
    const p = await freshProject();
    const installation = (
      await api.request('POST', `${p.base}/installations`, { token: p.token, body: { app_id: app.id } })
    ).body;
    const instance = (
      await api.request('POST', `${p.base}/agents/a1/tool-instances`, {
        token: p.token,
        body: {
          installation_id: installation.id,
          tool_name: 'find_customer',
          configuration: { k: 'v' },
          private_data: { secret: 'hidden-value' },
        },
      })
    ).body;
    const launch = (body: Record<string, unknown>) =>
      api.request('POST', `${p.base}/agents/a1/configurator-launches`, {
        token: p.token,
        body: { installation_id: installation.id, tool_name: 'find_customer', theme: 'light', language: 'ru', ...body },
      });

    const edit = await launch({ instance_id: instance.id });
    const exchanged = await api.request('POST', `/v1/apps/${app.id}/launch-codes/exchange`, {
      token: dev,
      body: { launch_code: edit.body.launch_code },
    });
    expect(exchanged.body).toMatchObject({
      mode: 'edit',
      instance: { id: instance.id, configuration: { k: 'v' }, private_data_set: true },
    });
    expect(exchanged.text).not.toContain('hidden-value');

    const expired = await launch({});
    await api.sql("UPDATE launch_codes SET expires_at = now() - interval '1 second' WHERE expires_at > now()");
    expect(
      (
        await api.request('POST', `/v1/apps/${app.id}/launch-codes/exchange`, {
          token: dev,
          body: { launch_code: expired.body.launch_code },
        })
      ).status,
    ).toBe(404);

    const other = await createEnabledApp(api, dev);
    const fresh = await launch({});
    expect(
      (
        await api.request('POST', `/v1/apps/${other.app.id}/launch-codes/exchange`, {
          token: dev,
          body: { launch_code: fresh.body.launch_code },
        })
      ).status,
    ).toBe(404);
    const stranger = await developerToken('dev_stranger');
    expect(
      (
        await api.request('POST', `/v1/apps/${app.id}/launch-codes/exchange`, {
          token: stranger,
          body: { launch_code: fresh.body.launch_code },
        })
      ).status,
    ).toBe(404);

    expect((await launch({ tool_name: 'plain' })).status).toBe(409);
    expect((await launch({ instance_id: 'ti_00000000000000000000000000000000' })).status).toBe(404);
    expect((await launch({ theme: 'blue' })).status).toBe(422);
  });

  it('opens the developer page in developer mode (409 without one), and the exchange gives the whole launch context', async () => {
    const { app } = await createEnabledApp(api, dev, { embeddedPage: true, tools: [httpTool({ configurable: true })] });
    const p = await freshProject();
    const installation = (
      await api.request('POST', `${p.base}/installations`, { token: p.token, body: { app_id: app.id } })
    ).body;
    const launch = (body: Record<string, unknown>) =>
      api.request('POST', `${p.base}/agents/a1/configurator-launches`, {
        token: p.token,
        body: { installation_id: installation.id, tool_name: 'find_customer', theme: 'dark', language: 'en', ...body },
      });

    const refused = await launch({ developer_mode: true });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/has no developer page \(developer_page_url\)/);
    expect((await launch({ developer_mode: 'yes' })).status).toBe(422);

    const patched = await api.request('PATCH', `/v1/apps/${app.id}`, {
      token: dev,
      body: { developer_page_url: 'http://localhost:5173/configure' },
    });
    expect(patched.status).toBe(200);
    const developer = await launch({ developer_mode: true });
    expect(developer.status).toBe(201);
    const url = new URL(developer.body.url);
    expect(`${url.origin}${url.pathname}`).toBe('http://localhost:5173/configure');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      launch_code: developer.body.launch_code,
      senler_mode: 'tool_configurator',
      senler_theme: 'dark',
      senler_language: 'en',
    });
    const embedded = await launch({ developer_mode: false });
    expect(new URL(embedded.body.url).origin).toBe('https://shop.example.com');

    const exchanged = await api.request('POST', `/v1/apps/${app.id}/launch-codes/exchange`, {
      token: dev,
      body: { launch_code: developer.body.launch_code },
    });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toEqual({
      type: 'tool_configurator',
      app_id: app.id,
      mode: 'create',
      project_id: p.id,
      agent_id: 'a1',
      installation_id: installation.id,
      tool_name: 'find_customer',
      theme: 'dark',
      language: 'en',
      tool: {
        name: 'find_customer',
        title: { ru: 'Найти клиента', en: 'Find customer' },
        description: { ru: 'Ищет клиента по номеру', en: 'Finds a customer by number' },
        parameters: httpTool().parameters,
        allow_multiple: false,
      },
      instance: null,
    });
  });
});
