import type { JsonSchema } from './hostile-input.js';

export type RouteRole = 'developer' | 'project' | 'agent' | 'operator' | 'none';

export interface Route {
  method: string;
  /** `/v1/apps/{app_id}/tools`: the OpenAPI path. */
  template: string;
  pathParams: string[];
  queryParams: string[];
  bodySchema?: JsonSchema;
  /** The role whose token the route is meant for, by its path (the guard's rule): /v1/apps developer, /v1/projects project, ... */
  role: RouteRole;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

function roleOf(template: string): RouteRole {
  if (template.startsWith('/v1/apps')) return 'developer';
  if (template.startsWith('/v1/projects')) return 'project';
  if (template.startsWith('/v1/agents')) return 'agent';
  if (template.startsWith('/admin')) return 'operator';
  return 'none';
}

/** Every operation of the app's own OpenAPI document (/openapi.json), so that a new route is fuzzed without a list to update. */
export function routesOf(openapi: { paths: Record<string, Record<string, OpenApiOperation>> }): Route[] {
  return Object.entries(openapi.paths).flatMap(([template, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      template,
      pathParams: [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]),
      queryParams: (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      bodySchema: operation.requestBody?.content?.['application/json']?.schema,
      role: roleOf(template),
    })),
  );
}
