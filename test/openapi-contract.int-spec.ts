// The OpenAPI document is a contract: it lints clean, the committed client types are what it generates,
// and a client typed by them drives the README's quick start.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import createClient, { type Middleware } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_TYPES_FILE, openapiTypesOf } from '../scripts/openapi-types.mjs';
import type { paths } from './support/openapi.js';
import { uniqueAppName } from './support/fixtures.js';
import { type TestApi, startTestApi } from './support/test-api.js';
import { agentToken, developerToken, projectToken } from './support/tokens.js';
import { WebhookHandler } from './support/webhook-handler.js';

const run = promisify(execFile);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

let api: TestApi;
let document: any;
beforeAll(async () => {
  api = await startTestApi();
  const response = await api.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  document = response.body;
});
afterAll(() => api.close());

/** Checks each answer against the schema the document gives for its operation and status: the presenters cannot drift. */
function conformsToDocument(): Middleware & { checked: string[] } {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: 'doc', components: document.components });
  const checked: string[] = [];
  return {
    checked,
    async onResponse({ schemaPath, request, response }) {
      const operation = document.paths[schemaPath][request.method.toLowerCase()];
      const media = operation.responses[String(response.status)]?.content;
      expect(media, `${request.method} ${schemaPath} ${response.status} is documented`).toBeDefined();
      const [type, { schema }] = Object.entries(media as Record<string, { schema: object }>)[0];
      expect(response.headers.get('content-type')).toContain(type);
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"doc#/components')));
      const body = await response.clone().json();
      expect(validate(body) ? [] : validate.errors, `${request.method} ${schemaPath} ${response.status}`).toEqual([]);
      checked.push(`${request.method} ${schemaPath} ${response.status}`);
    },
  };
}

function operations(): [string, string, any][] {
  return Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => [path, method, operation] as [string, string, any]),
  );
}

describe('the OpenAPI document', () => {
  it('has no error under redocly lint with the recommended rules', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const lint = await run('npx', ['redocly', 'lint', file, '--extends=recommended', '--format=json'], {
        maxBuffer: 64 * 1024 * 1024,
        // Offline and quiet: no usage report, no update check.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      }).catch((error: { stdout: string; stderr: string }) => error);
      const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{')));
      const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
      expect(errors.map((p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('gives every operation a summary, an operationId, a schema per answer and problem+json refusals', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: api.env.PUBLIC_BASE_URL }]);
    expect(document.components.schemas.Problem.properties.errors.type).toBe('array');
    for (const [path, method, operation] of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.summary, where).toBeTruthy();
      expect(operation.operationId, where).toBeTruthy();
      expect(operation.security, where).toBeDefined();
      for (const name of path.match(/\{[^}]+\}/g) ?? []) {
        expect(
          operation.parameters.some((p: { in: string; name: string }) => p.in === 'path' && `{${p.name}}` === name),
          `${where} ${name}`,
        ).toBe(true);
      }
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        if (status === '204') expect(response.content, where).toBeUndefined();
        else
          expect(
            Object.values(response.content ?? {}).every((media: any) => media.schema !== undefined),
            `${where} ${status}`,
          ).toBe(true);
        if (Number(status) >= 400 && path.startsWith('/v1/')) {
          expect(response.content['application/problem+json'].schema, `${where} ${status}`).toEqual({
            $ref: '#/components/schemas/Problem',
          });
        }
      }
      if (path.startsWith('/v1/'))
        expect(Object.keys(operation.responses), where).toEqual(expect.arrayContaining(['401', '403']));
    }
    const call = document.paths['/v1/agents/{agent_id}/tool-calls'].post;
    expect(Object.keys(call.responses)).toEqual(expect.arrayContaining(['200', '202', '422']));
    expect(call.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['agent_id', 'Idempotency-Key']),
    );
    const calls = document.paths['/v1/apps/{app_id}/tool-calls'].get;
    const names = calls.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['limit', 'cursor', 'status', 'tool_name', 'agent_id']));
    expect(document.paths['/v1/apps/{app_id}'].delete.responses['204']).toBeDefined();
    expect(document.paths['/v1/apps'].post.responses['201'].content['application/json'].schema.required).toContain(
      'webhook_secret',
    );
  });

  it('generates exactly the committed client types (run `npm run openapi:types` after changing the API)', async () => {
    expect(await openapiTypesOf(document)).toBe(readFileSync(OPENAPI_TYPES_FILE, 'utf8'));
  }, 60_000);
});

describe('a client generated from the document', () => {
  it("drives the quick start: app, constructor mode, tool, install, instance, the agent's tools, an instant call", async () => {
    const handler = await new WebhookHandler().start();
    try {
      const conforms = conformsToDocument();
      const as = (token: string) => {
        const client = createClient<paths>({ baseUrl: api.baseUrl, headers: { authorization: `Bearer ${token}` } });
        client.use(conforms);
        return client;
      };
      const developer = as(await developerToken('dev_quick_start'));

      const created = await developer.POST('/v1/apps', {
        body: { name: uniqueAppName('quick'), display_name: 'Quick start' },
      });
      expect(created.response.status).toBe(201);
      const app = created.data!;
      handler.secrets = [app.webhook_secret];
      const enabled = await developer.PUT('/v1/apps/{app_id}/agent-tools', {
        params: { path: { app_id: app.id } },
        body: { enabled: true, mode: 'constructor' },
      });
      expect(enabled.data?.enabled).toBe(true);
      const tool = await developer.POST('/v1/apps/{app_id}/tools', {
        params: { path: { app_id: app.id } },
        body: {
          name: 'echo',
          title: { ru: 'Эхо', en: 'Echo' },
          description: { ru: 'Повторяет текст', en: 'Repeats the text' },
          handler_url: handler.url('/echo'),
          parameters: [{ name: 'text', type: 'string', description: 'What to repeat', required: true }],
          execution_mode: 'instant',
        },
      });
      expect(tool.response.status, JSON.stringify(tool.error)).toBe(201);

      const projectId = `p_quick_${process.pid}`;
      const agentId = `a_quick_${process.pid}`;
      const project = as(await projectToken(projectId));
      const installation = await project.POST('/v1/projects/{project_id}/installations', {
        params: { path: { project_id: projectId } },
        body: { app_id: app.id },
      });
      expect(installation.response.status).toBe(201);
      const instance = await project.POST('/v1/projects/{project_id}/agents/{agent_id}/tool-instances', {
        params: { path: { project_id: projectId, agent_id: agentId } },
        body: { installation_id: installation.data!.id, tool_name: 'echo' },
      });
      expect(instance.data?.status).toBe('active');

      const agent = as(await agentToken(projectId, agentId));
      const tools = await agent.GET('/v1/agents/{agent_id}/tools', { params: { path: { agent_id: agentId } } });
      const name = tools.data!.data[0].name;
      expect(tools.data!.data).toHaveLength(1);
      const called = await agent.POST('/v1/agents/{agent_id}/tool-calls', {
        params: { path: { agent_id: agentId }, header: { 'Idempotency-Key': 'quick-start-1' } },
        body: { tool: name, dialog_id: 'dialog-1', arguments: { text: 'hello' } },
      });
      expect(called.response.status).toBe(200);
      expect(called.data).toMatchObject({ status: 'succeeded', result: { echo: { text: 'hello' } } });
      expect(handler.at('/echo')).toHaveLength(1);

      const refused = await agent.POST('/v1/agents/{agent_id}/tool-calls', {
        params: { path: { agent_id: agentId } },
        body: { tool: name, dialog_id: '' },
      });
      expect(refused.response.status).toBe(422);
      expect(refused.error?.errors?.[0]?.path).toBe('dialog_id');
      expect(conforms.checked).toHaveLength(8);

      // The reads of what the quick start made answer as documented too.
      const callId = called.data!.call_id;
      const appPath = { params: { path: { app_id: app.id } } };
      await agent.GET('/v1/agents/{agent_id}/tool-calls/{call_id}', {
        params: { path: { agent_id: agentId, call_id: callId } },
      });
      await agent.POST('/v1/agents/{agent_id}/tool-calls/{call_id}/cancel', {
        params: { path: { agent_id: agentId, call_id: callId } },
      });
      await developer.GET('/v1/apps', {});
      await developer.GET('/v1/apps/{app_id}', appPath);
      await developer.GET('/v1/apps/{app_id}/agent-tools', appPath);
      await developer.GET('/v1/apps/{app_id}/tools', appPath);
      await developer.GET('/v1/apps/{app_id}/tool-calls', {
        params: { path: { app_id: app.id }, query: { status: 'succeeded' } },
      });
      await developer.GET('/v1/apps/{app_id}/tool-calls/{call_id}', {
        params: { path: { app_id: app.id, call_id: callId } },
      });
      await developer.GET('/v1/apps/{app_id}/mcp/tools', appPath);
      await project.GET('/v1/projects/{project_id}/installations', { params: { path: { project_id: projectId } } });
      await project.GET('/v1/projects/{project_id}/installations/{installation_id}/tools', {
        params: { path: { project_id: projectId, installation_id: installation.data!.id }, query: { lang: 'en' } },
      });
      const agentPath = { project_id: projectId, agent_id: agentId };
      await project.GET('/v1/projects/{project_id}/agents/{agent_id}/tool-instances', { params: { path: agentPath } });
      await developer.POST('/v1/apps/{app_id}/webhook-secret/rotate', appPath);
      expect(conforms.checked).toEqual(
        expect.arrayContaining([
          'POST /v1/agents/{agent_id}/tool-calls/{call_id}/cancel 409',
          'GET /v1/apps/{app_id}/tool-calls/{call_id} 200',
        ]),
      );
      expect(conforms.checked).toHaveLength(21);
    } finally {
      await handler.stop();
    }
  });
});
