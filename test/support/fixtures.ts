import { expect } from 'vitest';
import type { TestApi } from './test-api.js';

type Api = Pick<TestApi, 'request'>;

let counter = 0;

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
  return { app, dev, tools: created, ...given };
}

/** Installs an existing app in a project (fresh unless named) and gives the named tools to an agent of it. */
export async function giveAppToAgent(
  api: Api,
  appId: string,
  toolNames: string[],
  options: { instances?: Record<string, Record<string, unknown>>; projectId?: string; agentId?: string } = {},
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
