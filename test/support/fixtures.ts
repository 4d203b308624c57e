import { expect } from 'vitest';
import type { TestApi } from './test-api.js';

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
  api: TestApi,
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
    const patched = await api.request('PATCH', `/v1/apps/${app.id}`, { token: developerToken, body: { embedded_page_url: 'https://shop.example.com/configure?x=1' } });
    expect(patched.status).toBe(200);
  }
  const enabled = await api.request('PUT', `/v1/apps/${app.id}/agent-tools`, { token: developerToken, body: { enabled: true, mode: 'constructor' } });
  expect(enabled.status).toBe(200);
  const tools = [];
  for (const tool of options.tools ?? []) {
    const response = await api.request('POST', `/v1/apps/${app.id}/tools`, { token: developerToken, body: tool });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    tools.push(response.body);
  }
  return { app, tools };
}
