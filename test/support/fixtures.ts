import { expect } from 'vitest';
import { agentFacingBaseName } from '../../libs/domain/src/naming.js';
import type { TestApi } from './test-api.js';
import type { WebhookHandler } from './webhook-handler.js';

type Api = Pick<TestApi, 'request'>;

let counter = 0;

/** The name an agent is shown for a tool of `app` (the product's own rule; no name collisions). */
export function agentFacingName(app: { name: string }, toolName = 'find_customer'): string {
  return agentFacingBaseName(app.name, toolName);
}

/** What every agent-facing name of `app`'s tools starts with. */
export function agentFacingPrefix(app: { name: string }): string {
  return agentFacingBaseName(app.name, '');
}

/** A unique app name for this process. */
export function uniqueAppName(prefix = 'app'): string {
  counter += 1;
  return `${prefix}-${process.pid.toString(36)}-${counter}`.slice(0, 24);
}

export function httpTool(overrides: Record<string, unknown> = {}) {
  return {
    name: 'find_customer',
    title: { ru: 'Найти клиента', en: 'Find customer' },
    description: { ru: 'Ищет клиента по номеру', en: 'Finds a customer by number' },
    handler_url: 'https://shop.example.com/hooks/find',
    parameters: [
      { name: 'customer_id', type: 'string', description: 'The customer number', required: true },
      { name: 'with_orders', type: 'boolean', description: 'Include orders', required: false },
    ],
    execution_mode: 'instant',
    attempt_timeout_s: 10,
    ...overrides,
  };
}

/** An app with agent tools enabled in constructor mode, optionally with a configurator page and tools. */
export async function createEnabledApp(
  api: Api,
  developerToken: string,
  options: { embeddedPage?: boolean; tools?: Record<string, unknown>[]; name?: string; displayName?: string } = {},
) {
  const created = await api.request('POST', '/v1/apps', {
    token: developerToken,
    body: { name: options.name ?? uniqueAppName(), display_name: options.displayName ?? 'Shop' },
  });
  expect(created.status).toBe(201);
  const app = created.body as { id: string; name: string; webhook_secret: string };
  if (options.embeddedPage) {
    const patched = await api.request('PATCH', `/v1/apps/${app.id}`, {
      token: developerToken,
      body: { embedded_page_url: 'https://shop.example.com/configure?x=1' },
    });
    expect(patched.status).toBe(200);
  }
  const enabled = await api.request('PUT', `/v1/apps/${app.id}/agent-tools`, {
    token: developerToken,
    body: { enabled: true, mode: 'constructor' },
  });
  expect(enabled.status).toBe(200);
  const tools = [];
  for (const tool of options.tools ?? []) {
    const response = await api.request('POST', `/v1/apps/${app.id}/tools`, { token: developerToken, body: tool });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    tools.push(response.body);
  }
  return { app, tools };
}

let agentCounter = 0;

/**
 * A developer's app with the given tools, installed in a fresh project and given to a fresh
 * agent: what every agent-side test starts from. `projectId`/`agentId` pick the ids instead.
 */
export async function agentWithTools(
  api: Api,
  tools: Record<string, unknown>[],
  options: {
    instances?: Record<string, Record<string, unknown>>;
    appName?: string;
    displayName?: string;
    developer?: string;
    projectId?: string;
    agentId?: string;
    approveChanges?: 'auto';
  } = {},
) {
  const { developerToken } = await import('./tokens.js');
  const dev = await developerToken(options.developer ?? 'dev_agents');
  const configurable = tools.some((t) => t.configurable);
  const { app, tools: created } = await createEnabledApp(api, dev, {
    embeddedPage: configurable,
    tools,
    name: options.appName,
    displayName: options.displayName,
  });
  const given = await giveAppToAgent(
    api,
    app.id,
    created.map((t) => t.name),
    options,
  );
  return { app, dev, tools: created, ...given, toolName: agentFacingName(app, created[0]?.name as string) };
}

/**
 * `agentWithTools` for one `httpTool` answered by `handler` at a path of its own (the handler
 * verifies with the app's secret), plus the agent's and the developer's calls on it.
 */
export async function agentWithHandlerTool(
  api: Api,
  handler: WebhookHandler,
  toolOverrides: Record<string, unknown> = {},
  options: Parameters<typeof agentWithTools>[2] = {},
) {
  const path = `/hook/${Math.random().toString(36).slice(2)}`;
  const ctx = await agentWithTools(api, [httpTool({ handler_url: handler.url(path), ...toolOverrides })], options);
  handler.secrets = [ctx.app.webhook_secret];
  /** The agent calls the tool: `body` replaces fields of a valid call. */
  const call = (body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
    api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: ctx.toolName, dialog_id: 'd1', arguments: { customer_id: 'c1' }, ...body },
      headers,
    });
  /** The agent reads a call, long-polling `wait` seconds when given. */
  const read = (callId: string, wait = 0) =>
    api.request('GET', `${ctx.base}/tool-calls/${callId}${wait ? `?wait=${wait}` : ''}`, { token: ctx.agent });
  /** The developer reads a call with its attempts. */
  const detail = (callId: string) =>
    api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${callId}`, { token: ctx.dev });
  return { ...ctx, path, call, read, detail };
}

/** Installs an existing app in a project (fresh unless named) and gives the named tools to an agent of it. */
export async function giveAppToAgent(
  api: Api,
  appId: string,
  toolNames: string[],
  options: {
    instances?: Record<string, Record<string, unknown>>;
    projectId?: string;
    agentId?: string;
    /** `auto`: the agent sees every change of the app's tools at once (a test about something else than approval). */
    approveChanges?: 'auto';
  } = {},
) {
  const { projectToken, agentToken } = await import('./tokens.js');
  agentCounter += 1;
  const projectId = options.projectId ?? `p_${process.pid}_${agentCounter}`;
  const agentId = options.agentId ?? `a_${process.pid}_${agentCounter}`;
  const project = await projectToken(projectId);
  const installation = await api.request('POST', `/v1/projects/${projectId}/installations`, {
    token: project,
    body: { app_id: appId },
  });
  expect(installation.status, JSON.stringify(installation.body)).toBe(201);
  if (options.approveChanges) {
    const patched = await api.request('PATCH', `/v1/projects/${projectId}/installations/${installation.body.id}`, {
      token: project,
      body: { approve_changes: options.approveChanges },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  }
  const instances = [];
  for (const toolName of toolNames) {
    const response = await api.request(
      'POST',
      `/v1/projects/${projectId}/agents/${encodeURIComponent(agentId)}/tool-instances`,
      {
        token: project,
        body: { installation_id: installation.body.id, tool_name: toolName, ...(options.instances?.[toolName] ?? {}) },
      },
    );
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    instances.push(response.body);
  }
  return {
    instances,
    projectId,
    agentId,
    project,
    installationId: installation.body.id as string,
    agent: await agentToken(projectId, agentId),
    base: `/v1/agents/${encodeURIComponent(agentId)}`,
  };
}
