import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox, parseSecretKeys } from '../../libs/secrets/src/index.js';
import { TEST_SECRETS_KEYS, type TestApi, startTestApi } from '../support/test-api.js';
import { agentToken, developerToken, projectToken, signToken } from '../support/tokens.js';

let api: TestApi;
let alice: string;
let bob: string;
let n = 0;
const uniqueName = () => `app-${process.pid}-${++n}`.slice(0, 24);

beforeAll(async () => {
  api = await startTestApi();
  alice = await developerToken('dev_alice');
  bob = await developerToken('dev_bob');
});
afterAll(() => api.close());

async function createApp(token = alice, name = uniqueName()) {
  const response = await api.request('POST', '/v1/apps', { token, body: { name, display_name: 'My CRM' } });
  expect(response.status).toBe(201);
  return response.body;
}

describe('POST /v1/apps', () => {
  it("creates a new developer's first apps made at once, each with its name", async () => {
    const token = await developerToken(`dev_first_${Date.now()}`);
    const created = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.request('POST', '/v1/apps', { token, body: { name: `first-at-once-${i}`, display_name: 'At once' } }),
      ),
    );
    expect(created.map((answer) => answer.status)).toEqual(Array(6).fill(201));
  });

  it('creates an app and shows its webhook secret once', async () => {
    const name = uniqueName();
    const response = await api.request('POST', '/v1/apps', { token: alice, body: { name, display_name: 'My CRM' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id: expect.stringMatching(/^app_/),
      name,
      display_name: 'My CRM',
      embedded_page_url: null,
      developer_page_url: null,
      agent_tools: { enabled: false, mode: 'constructor', mcp_call_timeout_s: 30 },
    });
    expect(response.body.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(response.body.webhook_secret.slice(6), 'base64')).toHaveLength(32);

    const read = await api.request('GET', `/v1/apps/${response.body.id}`, { token: alice });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(response.body.webhook_secret);
    expect(read.body.webhook_secret).toBeUndefined();
  });

  it('stores the webhook secret encrypted (JWE under the current key)', async () => {
    const app = await createApp();
    const [row] = await api.sql('SELECT webhook_secret_enc FROM apps WHERE id = $1', [app.id]);
    expect(row.webhook_secret_enc).not.toContain(app.webhook_secret.slice(6));
    expect(row.webhook_secret_enc.split('.')).toHaveLength(5);
    expect(await new SecretBox(parseSecretKeys(TEST_SECRETS_KEYS)).decrypt(row.webhook_secret_enc)).toBe(
      app.webhook_secret,
    );
  });

  it('refuses a name another app has, whoever owns it (409)', async () => {
    const app = await createApp(alice);
    const response = await api.request('POST', '/v1/apps', {
      token: bob,
      body: { name: app.name, display_name: 'Copy' },
    });
    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status: 409, title: 'Conflict', type: 'urn:toolgate:problem:conflict' });
    expect(response.body.detail).toMatch(/already exists/);
  });

  it.each([
    [{ name: 'ab', display_name: 'x' }, 'name'],
    [{ name: 'my--app', display_name: 'x' }, 'name'],
    [{ name: 'my_app', display_name: 'x' }, 'name'],
    [{ name: 'Upper', display_name: 'x' }, 'name'],
    [{ name: 'app-', display_name: 'x' }, 'name'],
    [{ name: 'toolgate', display_name: 'x' }, 'name'],
    [{ name: 'admin', display_name: 'x' }, 'name'],
    [{ name: 'a'.repeat(25), display_name: 'x' }, 'name'],
    [{ name: 'valid-name', display_name: '' }, 'display_name'],
    [{ name: 'valid-name', display_name: 'x'.repeat(101) }, 'display_name'],
    [{ name: 'valid-name', display_name: '   ' }, 'display_name'],
    [{ display_name: 'x' }, 'name'],
    [{ name: 'valid-name', display_name: 'x', extra: 1 }, 'extra'],
  ])('refuses %j at %s (422)', async (body, path) => {
    const response = await api.request('POST', '/v1/apps', { token: alice, body });
    expect(response.status).toBe(422);
    expect(response.body.type).toBe('urn:toolgate:problem:validation_failed');
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it('lists every problem of a body at once', async () => {
    const response = await api.request('POST', '/v1/apps', { token: alice, body: { name: 'A', display_name: '' } });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['display_name', 'name']);
  });

  it('says a JSON body is needed when none came (or not as application/json)', async () => {
    const text = await api.request('POST', '/v1/apps', {
      token: alice,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(422);
    expect(text.body.errors).toEqual([
      { path: '', message: 'a JSON body is required, sent with Content-Type: application/json' },
    ]);
  });

  it('answers malformed JSON with 400 and a body over 1 MiB with 413, both problem+json', async () => {
    const malformed = await api.request('POST', '/v1/apps', { token: alice, rawBody: '{"name": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(malformed.body).toMatchObject({ status: 400, detail: 'The body is not valid JSON.' });

    const huge = await api.request('POST', '/v1/apps', {
      token: alice,
      body: { name: 'big-app', display_name: 'x'.repeat(1024 * 1024 + 10) },
    });
    expect(huge.status).toBe(413);
    expect(huge.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('authentication', () => {
  it('answers 401 without a token, with a bad one, an expired one or a wrong audience', async () => {
    const cases = [
      undefined,
      'not-a-jwt',
      await signToken({ role: 'developer', sub: 'd' }, { secret: 'another-secret-of-at-least-32-characters' }),
      await signToken({ role: 'developer', sub: 'd' }, { expiresIn: '-1m' }),
      await signToken({ role: 'developer', sub: 'd' }, { expiresIn: '' }),
      await signToken({ role: 'developer', sub: 'd' }, { audience: 'someone-else' }),
      await signToken({ role: 'developer' }),
      await signToken({ role: 'superuser', sub: 'd' }),
    ];
    for (const token of cases) {
      const response = await api.request('GET', '/v1/apps', { token });
      expect(response.status, `token ${token}`).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.type).toBe('urn:toolgate:problem:unauthenticated');
    }
  });

  it('refuses project and agent tokens on developer routes', async () => {
    for (const token of [await projectToken('p1'), await agentToken('p1', 'a1')]) {
      const response = await api.request('GET', '/v1/apps', { token });
      expect(response.status).toBe(403);
      expect(response.body.detail).toMatch(/needs a developer token/);
    }
  });
});

describe('reading, listing and updating apps', () => {
  it('lists only the developer own apps, paginated with a cursor', async () => {
    const carol = await developerToken('dev_carol');
    const created = [await createApp(carol), await createApp(carol), await createApp(carol)];
    await createApp(alice);
    const first = await api.request('GET', '/v1/apps?limit=2', { token: carol });
    expect(first.status).toBe(200);
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual([created[0].id, created[1].id]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await api.request('GET', `/v1/apps?limit=2&cursor=${first.body.next_cursor}`, { token: carol });
    expect(second.body.data.map((a: { id: string }) => a.id)).toEqual([created[2].id]);
    expect(second.body.next_cursor).toBeNull();
    expect(JSON.stringify([first.body, second.body])).not.toContain('whsec_');
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'cursor=%%%', 'cursor=bm90LWFuLWlk'])(
    'refuses ?%s (422)',
    async (query) => {
      const response = await api.request('GET', `/v1/apps?${query}`, { token: alice });
      expect(response.status).toBe(422);
      expect(response.body.errors[0].path).toBe(query.split('=')[0]);
    },
  );

  it('updates display_name and page URLs, and refuses a change of name', async () => {
    const app = await createApp();
    const response = await api.request('PATCH', `/v1/apps/${app.id}`, {
      token: alice,
      body: {
        display_name: 'Renamed',
        embedded_page_url: 'https://crm.example.com/configure',
        developer_page_url: 'https://crm.example.com',
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: app.name,
      display_name: 'Renamed',
      embedded_page_url: 'https://crm.example.com/configure',
      developer_page_url: 'https://crm.example.com',
    });
    const cleared = await api.request('PATCH', `/v1/apps/${app.id}`, {
      token: alice,
      body: { developer_page_url: null },
    });
    expect(cleared.body).toMatchObject({ developer_page_url: null, display_name: 'Renamed' });

    const rename = await api.request('PATCH', `/v1/apps/${app.id}`, { token: alice, body: { name: 'other-name' } });
    expect(rename.status).toBe(422);
    expect(rename.body.errors).toEqual([{ path: 'name', message: 'the app name is fixed once created' }]);
  });

  it.each([
    [{ embedded_page_url: 'ftp://x.example.com' }, 'embedded_page_url'],
    [{ embedded_page_url: 'https://user:pw@x.example.com' }, 'embedded_page_url'],
    [{ developer_page_url: 'not a url' }, 'developer_page_url'],
    [{ display_name: '' }, 'display_name'],
  ])('refuses the update %j (422)', async (body, path) => {
    const app = await createApp();
    const response = await api.request('PATCH', `/v1/apps/${app.id}`, { token: alice, body });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });
});

describe('deleting apps', () => {
  it('needs ?confirm=true (428), then removes the app', async () => {
    const app = await createApp();
    const unconfirmed = await api.request('DELETE', `/v1/apps/${app.id}`, { token: alice });
    expect(unconfirmed.status).toBe(428);
    expect(unconfirmed.body.detail).toMatch(/confirm=true/);
    expect((await api.request('GET', `/v1/apps/${app.id}`, { token: alice })).status).toBe(200);

    const confirmed = await api.request('DELETE', `/v1/apps/${app.id}?confirm=true`, { token: alice });
    expect(confirmed.status).toBe(204);
    expect((await api.request('GET', `/v1/apps/${app.id}`, { token: alice })).status).toBe(404);
  });
});

describe('webhook secret rotation', () => {
  it('issues a new secret and keeps the old one valid for 24 hours', async () => {
    const app = await createApp();
    const before = Date.now();
    const response = await api.request('POST', `/v1/apps/${app.id}/webhook-secret/rotate`, { token: alice });
    expect(response.status).toBe(200);
    expect(response.body.webhook_secret).toMatch(/^whsec_/);
    expect(response.body.webhook_secret).not.toBe(app.webhook_secret);
    const validUntil = Date.parse(response.body.previous_valid_until);
    expect(validUntil - before).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 1000);
    expect(validUntil - before).toBeLessThanOrEqual(24 * 3600 * 1000 + 5000);

    const box = new SecretBox(parseSecretKeys(TEST_SECRETS_KEYS));
    const [row] = await api.sql('SELECT webhook_secret_enc, retired_webhook_secrets FROM apps WHERE id = $1', [app.id]);
    expect(await box.decrypt(row.webhook_secret_enc)).toBe(response.body.webhook_secret);
    expect(row.retired_webhook_secrets).toEqual([
      { secret_enc: expect.any(String), valid_until: response.body.previous_valid_until },
    ]);
    expect(await box.decrypt(row.retired_webhook_secrets[0].secret_enc)).toBe(app.webhook_secret);
    const read = await api.request('GET', `/v1/apps/${app.id}`, { token: alice });
    expect(read.text).not.toMatch(/whsec_/);
  });
});

describe("another developer's app", () => {
  it('is 404 on every app route, and nothing changes', async () => {
    const app = await createApp(alice);
    const id = app.id;
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/apps/${id}`],
      ['PATCH', `/v1/apps/${id}`, { display_name: 'Stolen' }],
      ['DELETE', `/v1/apps/${id}?confirm=true`],
      ['DELETE', `/v1/apps/${id}`],
      ['POST', `/v1/apps/${id}/webhook-secret/rotate`],
      ['GET', `/v1/apps/${id}/agent-tools`],
      ['PUT', `/v1/apps/${id}/agent-tools`, { enabled: true, mode: 'constructor' }],
      ['GET', `/v1/apps/${id}/tools`],
      [
        'POST',
        `/v1/apps/${id}/tools`,
        {
          name: 't',
          title: { ru: 'т', en: 't' },
          description: { ru: 'д', en: 'd' },
          handler_url: 'https://x.example.com',
          execution_mode: 'instant',
        },
      ],
      ['GET', `/v1/apps/${id}/tools/tool_00000000000000000000000000000000`],
    ];
    for (const [method, path, body] of routes) {
      const response = await api.request(method, path, { token: bob, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const read = await api.request('GET', `/v1/apps/${id}`, { token: alice });
    expect(read.body.display_name).toBe('My CRM');
  });
});

describe('agent-tools settings', () => {
  it('starts disabled in constructor mode without MCP', async () => {
    const app = await createApp();
    const response = await api.request('GET', `/v1/apps/${app.id}/agent-tools`, { token: alice });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ enabled: false, mode: 'constructor', mcp: null, mcp_call_timeout_s: 30 });
  });

  it('preserves, replaces and clears the write-only auth header value', async () => {
    const app = await createApp();
    const put = (body: unknown) => api.request('PUT', `/v1/apps/${app.id}/agent-tools`, { token: alice, body });
    const url = 'https://mcp.example.com/mcp';

    const replaced = await put({
      enabled: true,
      mode: 'mcp',
      mcp: {
        url,
        auth_header_name: 'X-Api-Key',
        auth_header_value: 'sekret-value-1',
        auth_header_value_action: 'replace',
      },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({
      enabled: true,
      mode: 'mcp',
      mcp: { url, auth_header_name: 'X-Api-Key', auth_header_value_set: true },
      mcp_call_timeout_s: 30,
    });
    expect(replaced.text).not.toContain('sekret-value-1');
    const [row] = await api.sql('SELECT mcp_auth_header_value_enc FROM apps WHERE id = $1', [app.id]);
    expect(row.mcp_auth_header_value_enc).not.toContain('sekret');
    expect(await new SecretBox(parseSecretKeys(TEST_SECRETS_KEYS)).decrypt(row.mcp_auth_header_value_enc)).toBe(
      'sekret-value-1',
    );

    const preserved = await put({
      enabled: false,
      mode: 'mcp',
      mcp: { url: 'https://mcp2.example.com/mcp', auth_header_value_action: 'preserve' },
    });
    expect(preserved.body).toEqual({
      enabled: false,
      mode: 'mcp',
      mcp: { url: 'https://mcp2.example.com/mcp', auth_header_name: 'X-Api-Key', auth_header_value_set: true },
      mcp_call_timeout_s: 30,
    });
    const [same] = await api.sql('SELECT mcp_auth_header_value_enc FROM apps WHERE id = $1', [app.id]);
    expect(same.mcp_auth_header_value_enc).toBe(row.mcp_auth_header_value_enc);

    const read = await api.request('GET', `/v1/apps/${app.id}/agent-tools`, { token: alice });
    expect(read.body).toEqual(preserved.body);
    expect(read.text).not.toContain('sekret');

    const cleared = await put({ enabled: true, mode: 'mcp', mcp: { url, auth_header_value_action: 'clear' } });
    expect(cleared.body.mcp).toEqual({ url, auth_header_name: null, auth_header_value_set: false });
    const [gone] = await api.sql('SELECT mcp_auth_header_value_enc FROM apps WHERE id = $1', [app.id]);
    expect(gone.mcp_auth_header_value_enc).toBeNull();

    const defaultName = await put({
      enabled: true,
      mode: 'mcp',
      mcp: { url, auth_header_value: 'Bearer t', auth_header_value_action: 'replace' },
    });
    expect(defaultName.body.mcp.auth_header_name).toBe('Authorization');
  });

  it('keeps the MCP settings when switching back to constructor mode without mcp, and removes them with mcp: null', async () => {
    const app = await createApp();
    const put = (body: unknown) => api.request('PUT', `/v1/apps/${app.id}/agent-tools`, { token: alice, body });
    const url = 'https://mcp.example.com/mcp';
    await put({
      enabled: true,
      mode: 'mcp',
      mcp: { url, auth_header_value: 'v', auth_header_value_action: 'replace' },
    });
    const kept = await put({ enabled: true, mode: 'constructor' });
    expect(kept.body).toEqual({
      enabled: true,
      mode: 'constructor',
      mcp: { url, auth_header_name: 'Authorization', auth_header_value_set: true },
      mcp_call_timeout_s: 30,
    });
    const removed = await put({ enabled: true, mode: 'constructor', mcp: null });
    expect(removed.body).toEqual({ enabled: true, mode: 'constructor', mcp: null, mcp_call_timeout_s: 30 });
  });

  it("sets the app's own MCP call deadline, 1 to 120 s, keeps it when omitted and goes back to 30 s with null", async () => {
    const app = await createApp();
    const put = (body: unknown) => api.request('PUT', `/v1/apps/${app.id}/agent-tools`, { token: alice, body });
    const mcp = { url: 'https://mcp.example.com/mcp', auth_header_value_action: 'clear' };
    const set = await put({ enabled: true, mode: 'mcp', mcp, mcp_call_timeout_s: 90 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.mcp_call_timeout_s).toBe(90);
    expect((await api.sql('SELECT mcp_call_timeout_s FROM apps WHERE id = $1', [app.id]))[0].mcp_call_timeout_s).toBe(
      90,
    );
    const kept = await put({ enabled: false, mode: 'mcp', mcp });
    expect(kept.body.mcp_call_timeout_s).toBe(90);
    const read = await api.request('GET', `/v1/apps/${app.id}/agent-tools`, { token: alice });
    expect(read.body.mcp_call_timeout_s).toBe(90);
    const appRead = await api.request('GET', `/v1/apps/${app.id}`, { token: alice });
    expect(appRead.body.agent_tools).toEqual({ enabled: false, mode: 'mcp', mcp_call_timeout_s: 90 });
    const reset = await put({ enabled: true, mode: 'mcp', mcp, mcp_call_timeout_s: null });
    expect(reset.body.mcp_call_timeout_s).toBe(30);

    for (const [value, message] of [
      [0, 'must be at least 1 (seconds)'],
      [121, 'must be at most 120 (seconds), the longest an MCP call may take'],
      [2.5, 'must be a whole number of seconds from 1 to 120'],
      ['30', 'must be a whole number of seconds from 1 to 120'],
    ] as const) {
      const refused = await put({ enabled: true, mode: 'mcp', mcp, mcp_call_timeout_s: value });
      expect(refused.status).toBe(422);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(refused.body.errors).toEqual([{ path: 'mcp_call_timeout_s', message }]);
    }
    expect((await api.request('GET', `/v1/apps/${app.id}/agent-tools`, { token: alice })).body.mcp_call_timeout_s).toBe(
      30,
    );
  });

  it.each([
    [{ enabled: true, mode: 'mcp' }, ['mcp']],
    [{ enabled: true, mode: 'other' }, ['mode']],
    [{ mode: 'constructor' }, ['enabled']],
    [
      { enabled: true, mode: 'mcp', mcp: { url: 'https://m.example.com', auth_header_value_action: 'replace' } },
      ['mcp.auth_header_value'],
    ],
    [
      {
        enabled: true,
        mode: 'mcp',
        mcp: { url: 'https://m.example.com', auth_header_value: 'x', auth_header_value_action: 'preserve' },
      },
      ['mcp.auth_header_value'],
    ],
    [{ enabled: true, mode: 'mcp', mcp: { url: 'https://m.example.com' } }, ['mcp.auth_header_value_action']],
    [
      { enabled: true, mode: 'mcp', mcp: { url: 'file:///etc/passwd', auth_header_value_action: 'clear' } },
      ['mcp.url'],
    ],
    [
      {
        enabled: true,
        mode: 'mcp',
        mcp: { url: 'https://m.example.com', auth_header_name: 'Bad Header', auth_header_value_action: 'clear' },
      },
      ['mcp.auth_header_name'],
    ],
    [
      {
        enabled: true,
        mode: 'mcp',
        mcp: { url: 'https://m.example.com', auth_header_name: 'Content-Type', auth_header_value_action: 'clear' },
      },
      ['mcp.auth_header_name'],
    ],
    [
      {
        enabled: true,
        mode: 'mcp',
        mcp: {
          url: 'https://m.example.com',
          auth_header_name: 'X-Toolgate-Mcp-Scope',
          auth_header_value: 'k',
          auth_header_value_action: 'replace',
        },
      },
      ['mcp.auth_header_name'],
    ],
    [
      {
        enabled: true,
        mode: 'mcp',
        mcp: { url: 'https://m.example.com', auth_header_value: 'a\nb', auth_header_value_action: 'replace' },
      },
      ['mcp.auth_header_value'],
    ],
  ])('refuses %j (422)', async (body, paths) => {
    const app = await createApp();
    const response = await api.request('PUT', `/v1/apps/${app.id}/agent-tools`, { token: alice, body });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
  });
});

describe('errors never leak internals', () => {
  it('answers an unknown route with a problem+json 404', async () => {
    const response = await api.request('GET', '/v1/nothing-here', { token: alice });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
