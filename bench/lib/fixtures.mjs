// Fixtures over Toolgate's HTTP API: apps, tools, installations, tool instances, tokens.
import { randomBytes } from 'node:crypto';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { JWT_SECRET } from './stack.mjs';
import { token } from './http.mjs';

/** @typedef {import('./stack.mjs').Stack} Stack */

let seq = 0;
const DEVELOPER = 'bench_dev';

/**
 * A unique app name matching ^[a-z][a-z0-9-]{1,22}[a-z0-9]$.
 * @param {string} prefix
 */
export function appName(prefix) {
  seq += 1;
  return `${prefix}-${randomBytes(3).toString('hex')}${seq}`.slice(0, 24);
}

/**
 * The body of `POST /v1/apps/{id}/tools` for an HTTP tool answered at `handlerUrl`.
 * @param {string} name
 * @param {string} handlerUrl
 * @param {'instant' | 'wait' | 'background'} mode
 * @param {{ timeoutS?: number, parameters?: object[] }} [options]
 */
export function httpTool(name, handlerUrl, mode, { timeoutS = 10, parameters } = {}) {
  return {
    name,
    title: { ru: `Инструмент ${name}`, en: `Tool ${name}` },
    description: { ru: `Инструмент ${name} для нагрузочного теста`, en: `Benchmark tool ${name}` },
    handler_url: handlerUrl,
    parameters: parameters ?? [
      { name: 'customer_id', type: 'string', description: 'The customer number', required: true },
      { name: 'note', type: 'string', description: 'Free text about the request', required: false },
    ],
    execution_mode: mode,
    attempt_timeout_s: timeoutS,
    ...(mode === 'instant' ? {} : { retry_window: '5m' }),
  };
}

export const developerToken = () => token(JWT_SECRET, { role: 'developer', sub: DEVELOPER });
export const projectToken = (/** @type {string} */ projectId) =>
  token(JWT_SECRET, { role: 'project', project_id: projectId });
export const agentToken = (/** @type {string} */ projectId, /** @type {string} */ agentId) =>
  token(JWT_SECRET, { role: 'agent', project_id: projectId, agent_id: agentId });

/**
 * A constructor-mode app with the given HTTP tools.
 * @param {Stack} stack
 * @param {string} prefix
 * @param {ReturnType<typeof httpTool>[]} tools
 */
export async function constructorApp(stack, prefix, tools, { concurrency = 8 } = {}) {
  const dev = await developerToken();
  const { body: app } = await stack.client.call('POST', '/v1/apps', {
    token: dev,
    body: { name: appName(prefix), display_name: `Bench ${prefix}` },
    expect: 201,
  });
  await stack.client.call('PUT', `/v1/apps/${app.id}/agent-tools`, {
    token: dev,
    body: { enabled: true, mode: 'constructor' },
    expect: 200,
  });
  const queue = [...tools];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let tool = queue.shift(); tool; tool = queue.shift()) {
        await stack.client.call('POST', `/v1/apps/${app.id}/tools`, { token: dev, body: tool, expect: 201 });
      }
    }),
  );
  return { app, dev, prefix: `${app.name.replace(/-/g, '_')}_` };
}

/**
 * An MCP-mode app pointed at `url`, its snapshot loaded.
 * @param {Stack} stack
 * @param {string} prefix
 * @param {string} url
 */
export async function mcpApp(stack, prefix, url) {
  const dev = await developerToken();
  const { body: app } = await stack.client.call('POST', '/v1/apps', {
    token: dev,
    body: { name: appName(prefix), display_name: `Bench ${prefix}` },
    expect: 201,
  });
  await stack.client.call('PUT', `/v1/apps/${app.id}/agent-tools`, {
    token: dev,
    body: { enabled: true, mode: 'mcp', mcp: { url, auth_header_value_action: 'clear' } },
    expect: 200,
  });
  await stack.client.call('POST', `/v1/apps/${app.id}/mcp/refresh`, { token: dev, expect: 200 });
  return { app, dev, prefix: `${app.name.replace(/-/g, '_')}_` };
}

/**
 * Installs `app` in a fresh project and gives the named tools to a fresh agent (in order).
 * @param {Stack} stack
 * @param {{ id: string }} app
 * @param {string[]} toolNames
 * @param {{ projectId?: string, agentId?: string }} [ids]
 */
export async function agentWith(stack, app, toolNames, { projectId, agentId } = {}) {
  seq += 1;
  projectId ??= `bench-p${seq}`;
  agentId ??= `bench-a${seq}`;
  const project = await projectToken(projectId);
  const { body: installation } = await stack.client.call('POST', `/v1/projects/${projectId}/installations`, {
    token: project,
    body: { app_id: app.id },
    expect: 201,
  });
  /** @type {Record<string, string>} */
  const instances = {};
  for (const toolName of toolNames) {
    const { body } = await stack.client.call('POST', `/v1/projects/${projectId}/agents/${agentId}/tool-instances`, {
      token: project,
      body: { installation_id: installation.id, tool_name: toolName },
      expect: 201,
    });
    instances[toolName] = body.id;
  }
  return {
    projectId,
    agentId,
    token: await agentToken(projectId, agentId),
    installationId: installation.id,
    instances,
  };
}

/**
 * An MCP SDK client connected to `url` (the SDK picks the protocol revision, as an agent's client would).
 * @param {string} url
 * @param {Record<string, string>} [headers]
 */
export async function mcpConnect(url, headers = {}) {
  const client = new McpClient({ name: 'toolgate-bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
