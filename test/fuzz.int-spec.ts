// The fuzz test: every route of the app's own /openapi.json (and the queue dashboard) gets generated
// hostile input (wrong types, NUL, unpaired surrogates, huge strings, deep nesting, unknown fields,
// random bytes, odd content types and path segments) with valid tokens of each role. No answer is a
// 5xx (but the contract's 503 for an MCP server that is down), every REST refusal is problem+json,
// health still answers, and no call is left in_progress.
// FUZZ_RUNS=5000 FUZZ_SEED=<seed> npx vitest run test/fuzz.int-spec.ts runs longer or repeats a run;
// FUZZ_DUMP=1 prints every request, FUZZ_LOG_LEVEL=error shows the server's error logs.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import {
  type KnownFields,
  type RawBody,
  bodyFor,
  hostileJson,
  hostileSegment,
  hostileString,
  queryFor,
} from './support/hostile-input.js';
import { mcpAgent } from './support/mcp-fixtures.js';
import { type ChangingServer, startChangingServer } from './support/mcp-servers.js';
import { type Route, type RouteRole, routesOf } from './support/openapi-routes.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { developerToken, signToken } from './support/tokens.js';
import { WebhookHandler } from './support/webhook-handler.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const COMMON_QUERY = ['wait', 'limit', 'cursor', 'status', 'tool_name', 'agent_id', 'lang', 'confirm', 'token'];
/** The id pool a created resource's id goes to, by the last path segment of the POST that made it. */
const CREATED_ID: Record<string, string> = {
  apps: 'app_id',
  tools: 'tool_id',
  'tool-calls': 'call_id',
  installations: 'installation_id',
  'tool-instances': 'instance_id',
};

/** One developer's app installed in one project for one agent: its ids, tokens and the names its bodies use. */
interface Tenant {
  ids: Record<string, string[]>;
  tokens: Record<RouteRole, (string | undefined)[]>;
  known: KnownFields;
}

interface FuzzRequest {
  route: Route;
  tenant: number;
  role: RouteRole | 'garbage';
  pick: number;
  params: ({ real: number; otherTenant: boolean } | { raw: string })[];
  extraSegment: string | null;
  query: string | null;
  body: RawBody | undefined;
  headers: Record<string, string>;
}

let stack: TestStack;
let handler: WebhookHandler;
let mcpServer: ChangingServer;
let routes: Route[];
let tenants: Tenant[];
let garbageTokens: string[];

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  mcpServer = await startChangingServer(['alpha', 'beta']);
  stack = await startTestStack({
    RETRY_TIME_SCALE: '0.0002',
    MCP_WAIT_DEADLINE_S: '1',
    RECONCILE_INTERVAL_MS: '500',
    LOG_LEVEL: process.env.FUZZ_LOG_LEVEL ?? 'silent',
  });
  const api = stack.api;
  const http = await agentWithTools(api, [
    httpTool({ handler_url: handler.url('/fuzz/instant') }),
    httpTool({
      name: 'slow_lookup',
      handler_url: handler.url('/fuzz/wait'),
      execution_mode: 'wait',
      retry_window: '5m',
    }),
    httpTool({
      name: 'notify',
      handler_url: handler.url('/fuzz/background'),
      execution_mode: 'background',
      retry_window: '5m',
    }),
  ]);
  handler.secrets = [http.app.webhook_secret];
  const mcp = await mcpAgent(api, mcpServer.url, ['alpha', 'beta']);
  const toolNames = [
    ['find_customer', 'slow_lookup', 'notify'],
    ['alpha', 'beta'],
  ];
  const agentToolNames = [
    toolNames[0].map((name) => agentFacingName(http.app, name)),
    toolNames[1].map((name) => `${mcp.prefix}${name}`),
  ];
  const callIds: string[][] = [[], []];
  for (const [i, ctx] of [http, mcp].entries()) {
    for (const tool of agentToolNames[i]) {
      const body = { tool, dialog_id: 'd1', arguments: { customer_id: 'c1' } };
      const call = await api.request('POST', `${ctx.base}/tool-calls`, { token: ctx.agent, body });
      if (call.status < 300) callIds[i].push(call.body.call_id);
    }
  }
  const operator = await signToken({ role: 'operator' });
  tenants = [http, mcp].map((ctx, i) => ({
    ids: {
      app_id: [ctx.app.id],
      tool_id: 'tools' in ctx ? ctx.tools.map((t: { id: string }) => t.id) : [],
      call_id: callIds[i],
      project_id: [ctx.projectId],
      agent_id: [ctx.agentId],
      installation_id: [ctx.installationId],
      instance_id: 'instances' in ctx ? ctx.instances.map((t: { id: string }) => t.id) : [],
      path: ['api', 'api/queues', 'static/x.js', 'queue/x'],
    },
    tokens: {
      developer: [ctx.dev],
      project: [ctx.project],
      agent: [ctx.agent],
      operator: [operator],
      none: [undefined],
    },
    known: {
      tool: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...agentToolNames[i]) },
        { weight: 1, arbitrary: hostileString },
      ),
      tool_name: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...toolNames[i]) },
        { weight: 1, arbitrary: hostileString },
      ),
      app_id: fc.constantFrom(http.app.id, mcp.app.id, 'app_x'),
      installation_id: fc.constantFrom(ctx.installationId, 'inst_x'),
      instance_id: fc.constantFrom(...('instances' in ctx ? ctx.instances.map((t: { id: string }) => t.id) : ['ti_x'])),
      dialog_id: fc.oneof({ weight: 3, arbitrary: fc.constant('d1') }, { weight: 1, arbitrary: hostileString }),
      name: fc.oneof(fc.constantFrom('find_customer', 'fuzz-app', 'q'), fc.stringMatching(/^[a-z][a-z0-9_-]{2,12}$/)),
      arguments: fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record(
            { customer_id: fc.oneof(fc.constant('c1'), hostileString), with_orders: fc.boolean() },
            { requiredKeys: [] },
          ),
        },
        { weight: 1, arbitrary: hostileJson },
      ),
      url: fc.constantFrom(handler.url('/fuzz/other'), mcpServer.url, 'http://127.0.0.1:1/'),
    },
  }));
  garbageTokens = [
    await developerToken('stranger'),
    await signToken({ role: 'agent', project_id: 'p_other', agent_id: http.agentId }),
    await signToken({ role: 'developer', sub: 'dev_agents' }, { audience: 'someone-else' }),
    await signToken({ role: 'nobody' }),
    'not-a-jwt',
    'e30.e30.e30',
  ];
  const openapi = await api.request('GET', '/openapi.json');
  expect(openapi.status).toBe(200);
  routes = [
    ...routesOf(openapi.body),
    // The queue dashboard is mounted beside Nest, so the OpenAPI document does not list it.
    { method: 'GET', template: '/admin/queues', pathParams: [], queryParams: ['token'], role: 'operator' },
    { method: 'GET', template: '/admin/queues/{path}', pathParams: ['path'], queryParams: [], role: 'operator' },
  ];
}, 60_000);

afterAll(async () => {
  await stack?.close();
  await handler?.stop();
  await mcpServer?.stop();
});

const mcpMessage = (known: KnownFields) =>
  fc.record(
    {
      jsonrpc: fc.oneof({ weight: 9, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: hostileJson }),
      id: fc.oneof(fc.nat(), hostileString, fc.constant(null), hostileJson),
      method: fc.oneof(
        {
          weight: 6,
          arbitrary: fc.constantFrom(
            'initialize',
            'tools/list',
            'tools/call',
            'tools/call',
            'ping',
            'notifications/cancelled',
            'notifications/initialized',
            'resources/list',
            'server/discover',
            'tasks/get',
            'tasks/result',
            'tasks/cancel',
          ),
        },
        { weight: 1, arbitrary: hostileString },
      ),
      params: fc.oneof(
        {
          weight: 5,
          arbitrary: fc.record(
            {
              name: known.tool,
              arguments: known.arguments,
              _meta: fc.oneof(
                fc.record({ 'toolgate/dialog_id': hostileJson, progressToken: hostileJson }, { requiredKeys: [] }),
                hostileJson,
              ),
              requestId: fc.oneof(fc.nat(), hostileJson),
              task: fc.oneof(fc.constant({}), hostileJson),
              taskId: fc.oneof(hostileString, hostileJson),
              protocolVersion: fc.constantFrom('2025-11-25', '2025-03-26', '2026-07-28', 'x'),
              capabilities: hostileJson,
              clientInfo: fc.oneof(fc.constant({ name: 'fuzz', version: '1' }), hostileJson),
            },
            { requiredKeys: [] },
          ),
        },
        { weight: 1, arbitrary: hostileJson },
      ),
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  );

function mcpBody(known: KnownFields): fc.Arbitrary<RawBody | undefined> {
  return fc.oneof(
    {
      weight: 5,
      arbitrary: mcpMessage(known).map((m) => ({ bytes: JSON.stringify(m), contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(mcpMessage(known), { maxLength: 3 })
        .map((m) => ({ bytes: JSON.stringify(m), contentType: 'application/json' })),
    },
    { weight: 2, arbitrary: bodyFor(undefined, known) },
  );
}

const visibleAscii = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((n) => String.fromCharCode(n)),
  maxLength: 300,
});

const oddHeaders = fc.record(
  {
    'idempotency-key': visibleAscii,
    accept: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html'),
    'mcp-protocol-version': fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '2026-07-28', '1999-01-01', 'x'),
    'mcp-session-id': visibleAscii,
    'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown'),
    'x-request-id': visibleAscii,
  },
  { requiredKeys: [] },
);

function requestOf(route: Route, tenant: number): fc.Arbitrary<FuzzRequest> {
  const { known } = tenants[tenant];
  const isMcp = route.template.endsWith('/mcp');
  const bodyless = route.method === 'GET' || route.method === 'HEAD';
  const param = fc.oneof(
    { weight: 6, arbitrary: fc.record({ real: fc.nat(), otherTenant: fc.nat(5).map((n) => n === 0) }) },
    { weight: 1, arbitrary: hostileSegment.map((raw) => ({ raw })) },
  );
  return fc.record({
    route: fc.constant(route),
    tenant: fc.constant(tenant),
    role: fc.oneof(
      { weight: 10, arbitrary: fc.constant(route.role) },
      {
        weight: 2,
        arbitrary: fc.constantFrom<RouteRole | 'garbage'>(
          'developer',
          'project',
          'agent',
          'operator',
          'none',
          'garbage',
        ),
      },
    ),
    pick: fc.nat(),
    params: fc.array(param, { minLength: route.pathParams.length, maxLength: route.pathParams.length }),
    extraSegment: fc.oneof({ weight: 12, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: hostileSegment }),
    query: fc.oneof(
      { weight: 2, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: queryFor([...route.queryParams, ...COMMON_QUERY]) },
    ),
    body: bodyless ? fc.constant(undefined) : isMcp ? mcpBody(known) : bodyFor(route.bodySchema, known),
    headers: fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: oddHeaders }),
  });
}

/** Each route for each tenant; a DELETE is drawn less often, so that the fixtures live through most of the run. */
function weighted(route: Route) {
  return [0, 1].map((tenant) => ({ weight: route.method === 'DELETE' ? 1 : 4, arbitrary: requestOf(route, tenant) }));
}

function urlOf(request: FuzzRequest): string {
  let i = 0;
  const path = request.route.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const param = request.params[i++];
    if ('raw' in param) return param.raw;
    const pool = tenants[param.otherTenant ? 1 - request.tenant : request.tenant].ids[name] ?? [];
    return pool.length ? encodeURIComponent(pool[param.real % pool.length]).replace(/%2F/g, '/') : 'none';
  });
  return `${path}${request.extraSegment === null ? '' : `/${request.extraSegment}`}${request.query === null ? '' : `?${request.query}`}`;
}

function tokenOf(request: FuzzRequest): string | undefined {
  const pool = request.role === 'garbage' ? garbageTokens : tenants[request.tenant].tokens[request.role];
  return pool[request.pick % pool.length];
}

interface Failure {
  request: string;
  status: number | string;
  answer: string;
}

async function send(request: FuzzRequest, failures: Failure[]): Promise<void> {
  const url = urlOf(request);
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', ...request.headers };
  const token = tokenOf(request);
  if (token) headers.authorization = `Bearer ${token}`;
  if (request.body?.contentType) headers['content-type'] = request.body.contentType;
  const shortUrl = url.replace(/x{20,}/g, (m) => `<x*${m.length}>`);
  if (process.env.FUZZ_DUMP) console.log(`${request.route.method} ${shortUrl} ${JSON.stringify(request.headers)}`);
  const body = String(request.body?.bytes ?? '').slice(0, 300);
  const sentHeaders = JSON.stringify(headers).slice(0, 200);
  const summary = `${request.route.method} ${shortUrl.slice(0, 300)} as ${request.role} ${sentHeaders} body ${body}`;
  let response: Response;
  try {
    response = await fetch(stack.api.baseUrl + url, {
      method: request.route.method,
      headers,
      body: request.body?.bytes as string | Uint8Array<ArrayBuffer> | undefined,
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    failures.push({ request: summary, status: 'no answer', answer: String(error) });
    return;
  }
  const text = await response.text().catch((error: unknown) => `(body cut: ${String(error)})`);
  // 503 "unavailable" is the contract's answer when a dependency is down (here: an MCP server the fuzz pointed an app at).
  const dependencyDown =
    response.status === 503 &&
    (parseJson(text) as { type?: unknown } | undefined)?.type === 'urn:toolgate:problem:unavailable';
  if (response.status >= 500 && !dependencyDown) {
    failures.push({ request: summary, status: response.status, answer: text.slice(0, 500) });
    return;
  }
  const isRest = !request.route.template.endsWith('/mcp') && !request.route.template.startsWith('/admin');
  if (isRest && response.status >= 400 && request.route.method !== 'HEAD') {
    const problem = parseJson(text) as { detail?: unknown; errors?: { path?: unknown }[] } | undefined;
    const isProblem =
      /^application\/problem\+json/.test(response.headers.get('content-type') ?? '') &&
      typeof problem?.detail === 'string';
    const hasPaths =
      response.status !== 422 ||
      (Array.isArray(problem?.errors) && problem.errors.every((e) => typeof e.path === 'string'));
    if (!isProblem || !hasPaths) {
      failures.push({
        request: summary,
        status: `${response.status}, not a problem with paths`,
        answer: text.slice(0, 500),
      });
    }
  }
  if (response.ok && request.route.method === 'POST') remember(request, parseJson(text));
}

/** Ids of what the fuzz created go into the pools, so that later requests work on them. */
function remember(request: FuzzRequest, body: unknown) {
  const name = CREATED_ID[request.route.template.split('/').at(-1) ?? ''];
  const id =
    (body as { id?: unknown; call_id?: unknown } | undefined)?.call_id ?? (body as { id?: unknown } | undefined)?.id;
  if (name && typeof id === 'string') tenants[request.tenant].ids[name].push(id);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

it('answers generated hostile requests to every route without a 5xx, and leaves no call in progress', async () => {
  const failures: Failure[] = [];
  expect(routes.length).toBeGreaterThan(40);
  await fc.assert(
    fc.asyncProperty(fc.oneof(...routes.flatMap(weighted)), async (request) => {
      await send(request, failures);
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  expect(failures, `FUZZ_SEED=${SEED}: ${JSON.stringify(failures.slice(0, 8), null, 1)}`).toEqual([]);

  expect((await stack.api.request('GET', '/health/live')).status).toBe(200);
  expect((await stack.api.request('GET', '/health/ready')).status).toBe(200);
  const inProgress = async () =>
    stack.api.sql(`SELECT id, status FROM tool_calls WHERE status IN ('queued', 'in_progress')`);
  await eventually(async () => expect(await inProgress(), `FUZZ_SEED=${SEED}`).toEqual([]), {
    timeoutMs: 20_000,
    intervalMs: 200,
  });
}, 120_000);
