import { expect } from 'vitest';
import { eventually } from './eventually.js';
import { agentFacingPrefix, uniqueAppName } from './fixtures.js';
import type { TestApi } from './test-api.js';
import { agentToken, developerToken, projectToken } from './tokens.js';

let counter = 0;

/** An app in MCP mode pointed at `url`, its snapshot loaded, installed, and the named tools given to a fresh agent. */
export async function mcpAgent(
  api: Pick<TestApi, 'request'>,
  url: string,
  toolNames: string[],
  options: {
    headerName?: string;
    headerValue?: string;
    displayName?: string;
    /** The app's name (unique when absent). */
    name?: string;
    /** Another app's agent: its tools go to the same project and agent. */
    projectId?: string;
    agentId?: string;
  } = {},
) {
  counter += 1;
  const dev = await developerToken('dev_mcp');
  const created = await api.request('POST', '/v1/apps', {
    token: dev,
    body: { name: options.name ?? uniqueAppName('mcp'), display_name: options.displayName ?? 'Everything' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const app = created.body as { id: string; name: string };
  const mcp = options.headerValue
    ? {
        url,
        auth_header_name: options.headerName,
        auth_header_value: options.headerValue,
        auth_header_value_action: 'replace',
      }
    : { url, auth_header_value_action: 'clear' };
  expect(
    (
      await api.request('PUT', `/v1/apps/${app.id}/agent-tools`, {
        token: dev,
        body: { enabled: true, mode: 'mcp', mcp },
      })
    ).status,
  ).toBe(200);
  // The PUT starts a refresh of its own after its answer: let it end first, so that it cannot land after ours.
  await eventually(async () => {
    const snapshot = (await api.request('GET', `/v1/apps/${app.id}/mcp/tools`, { token: dev })).body;
    expect(snapshot.refreshed_at ?? snapshot.last_error).toBeTruthy();
  });
  const refreshed = await api.request('POST', `/v1/apps/${app.id}/mcp/refresh`, { token: dev });
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  const projectId = options.projectId ?? `mp_${process.pid}_${counter}`;
  const agentId = options.agentId ?? `ma_${process.pid}_${counter}`;
  const project = await projectToken(projectId);
  const installation = await api.request('POST', `/v1/projects/${projectId}/installations`, {
    token: project,
    body: { app_id: app.id },
  });
  for (const tool of toolNames) {
    const instance = await api.request('POST', `/v1/projects/${projectId}/agents/${agentId}/tool-instances`, {
      token: project,
      body: { installation_id: installation.body.id, tool_name: tool },
    });
    expect(instance.status, JSON.stringify(instance.body)).toBe(201);
  }
  const prefix = agentFacingPrefix(app);
  return {
    app,
    dev,
    projectId,
    agentId,
    project,
    installationId: installation.body.id as string,
    agent: await agentToken(projectId, agentId),
    base: `/v1/agents/${agentId}`,
    prefix,
    snapshot: refreshed.body,
  };
}
