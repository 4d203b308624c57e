// npm run demo: a first successful call in a few minutes. Starts Toolgate as `npm start` does (throw-away data),
// starts the example handler (examples/tool-handler.mjs), creates an app with two tools, installs it, gives the
// tools to an agent, and calls them: an instant call, a wait call that fails twice then succeeds (its attempts
// printed), and an MCP tools/list + tools/call through the agent endpoint. Exits 0 when every step succeeded.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SignJWT } from 'jose';
import { DEVELOPMENT_JWT_SECRET, loadEnvOrExit } from '../libs/config/src/index.js';
import { type ToolCallFinishedEvent, verifyToolCallFinished } from '../libs/verifier/src/index.js';
import { freePort } from './local-services.js';
import { type LocalToolgate, startLocalToolgate, waitUntilReady } from './local-toolgate.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PROJECT = 'demo-project';
const AGENT = 'demo-agent';
const RETRY_TIME_SCALE = '0.02'; // the 5-minute retry window in 6 seconds

const step = (title: string) => console.log(`\n▶ ${title}`);
const show = (line: string) => console.log(`  ${line}`);

type Api = (method: string, path: string, token: string, body?: unknown) => Promise<{ status: number; body: any }>;

function apiAt(baseUrl: string): Api {
  return async (method, path, token, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
}

async function expectStatus(answer: Promise<{ status: number; body: any }>, status: number, what: string) {
  const { status: got, body } = await answer;
  if (got !== status) throw new Error(`${what}: expected ${status}, got ${got}: ${JSON.stringify(body)}`);
  return body;
}

/** `promise`, or a failure naming `what` after `seconds`. */
function withinSeconds<T>(promise: Promise<T>, seconds: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not arrive within ${seconds} s`)), seconds * 1000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * The host's event endpoint, served by the demo itself: each tool_call.finished event is verified with the
 * endpoint's secret (`secret()`, known once the endpoint is set) and handed to whoever waits for its call.
 */
function startEventEndpoint(port: number, secret: () => string) {
  const arrived = new Map<string, (event: ToolCallFinishedEvent) => void>();
  const early = new Map<string, ToolCallFinishedEvent>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const event = verifyToolCallFinished(Buffer.concat(chunks), req.headers, secret());
        res.writeHead(204).end();
        const resume = arrived.get(event.call.call_id);
        if (resume) resume(event);
        else early.set(event.call.call_id, event);
      } catch (error) {
        res.writeHead(401).end((error as Error).message);
      }
    });
  });
  server.listen(port, '127.0.0.1');
  return {
    server,
    /** The event of `callId`, once it arrives. */
    eventOf(callId: string): Promise<ToolCallFinishedEvent> {
      const known = early.get(callId);
      if (known) return Promise.resolve(known);
      return new Promise((resolve) => arrived.set(callId, resolve));
    },
  };
}

function startHandler(secret: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(root, 'examples/tool-handler.mjs')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', TOOLGATE_WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the example handler exited (${code})`)));
    child.stdout.once('data', () => resolve(child));
  });
}

async function demo(toolgate: { baseUrl: string; jwtSecret: string }, handlers: ChildProcess[], servers: Server[]) {
  const sign = (claims: Record<string, string>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience('toolgate')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(toolgate.jwtSecret));
  const developer = await sign({ role: 'developer', sub: 'demo-developer' });
  const project = await sign({ role: 'project', project_id: PROJECT });
  const agent = await sign({ role: 'agent', project_id: PROJECT, agent_id: AGENT });
  const api = apiAt(toolgate.baseUrl);

  step('A developer registers an app (POST /v1/apps)');
  const name = `demo-crm-${randomBytes(3).toString('hex')}`;
  const app = await expectStatus(
    api('POST', '/v1/apps', developer, { name, display_name: 'Demo CRM' }),
    201,
    'create app',
  );
  show(`app ${app.name} (${app.id}); its webhook secret is shown once: whsec_…`);

  const handlerPort = await freePort();
  handlers.push(await startHandler(app.webhook_secret, handlerPort));
  const handlerUrl = `http://127.0.0.1:${handlerPort}/toolgate`;
  show(`example handler (examples/tool-handler.mjs) on ${handlerUrl}, verifying with @toolgate/verifier`);

  step('…switches its agent tools on and declares two HTTP tools');
  await expectStatus(
    api('PUT', `/v1/apps/${app.id}/agent-tools`, developer, { enabled: true, mode: 'constructor' }),
    200,
    'enable',
  );
  const texts = (en: string) => ({ ru: en, en });
  await expectStatus(
    api('POST', `/v1/apps/${app.id}/tools`, developer, {
      name: 'find_customer',
      title: texts('Find a customer'),
      description: texts('Finds a customer by id'),
      handler_url: handlerUrl,
      execution_mode: 'instant',
      parameters: [{ name: 'customer_id', type: 'string', description: 'The customer id', required: true }],
    }),
    201,
    'create find_customer',
  );
  await expectStatus(
    api('POST', `/v1/apps/${app.id}/tools`, developer, {
      name: 'flaky_lookup',
      title: texts('Stock lookup'),
      description: texts('Looks up stock (fails twice on purpose)'),
      handler_url: handlerUrl,
      execution_mode: 'wait',
      retry_window: '5m',
      parameters: [{ name: 'query', type: 'string', description: 'What to look up', required: true }],
    }),
    201,
    'create flaky_lookup',
  );
  show('find_customer (instant), flaky_lookup (wait, 5m retry window)');

  step(`A project installs the app and gives both tools to its agent ${AGENT}`);
  const installation = await expectStatus(
    api('POST', `/v1/projects/${PROJECT}/installations`, project, { app_id: app.id }),
    201,
    'install',
  );
  for (const toolName of ['find_customer', 'flaky_lookup']) {
    await expectStatus(
      api('POST', `/v1/projects/${PROJECT}/agents/${AGENT}/tool-instances`, project, {
        installation_id: installation.id,
        tool_name: toolName,
      }),
      201,
      `add ${toolName}`,
    );
  }
  const tools = await expectStatus(api('GET', `/v1/agents/${AGENT}/tools`, agent), 200, 'list tools');
  for (const tool of tools.data) show(`${tool.name} (${tool.execution_mode})`);
  const agentName = (toolName: string) =>
    tools.data.find((t: { name: string }) => t.name.endsWith(`_${toolName}`)).name;

  step("The agent makes an instant call: the handler's answer is the result");
  const instant = await expectStatus(
    api('POST', `/v1/agents/${AGENT}/tool-calls`, agent, {
      tool: agentName('find_customer'),
      dialog_id: 'demo-dialog',
      arguments: { customer_id: '42' },
    }),
    200,
    'instant call',
  );
  if (instant.status !== 'succeeded')
    throw new Error(`the instant call ${instant.status}: ${JSON.stringify(instant.error)}`);
  show(`200 ${instant.status}: ${instant.result_text}`);

  step('The host sets its event endpoint (served by this demo): it is told when a wait call ends');
  let eventSecret = '';
  const eventPort = await freePort();
  const events = startEventEndpoint(eventPort, () => eventSecret);
  servers.push(events.server);
  const endpoint = await expectStatus(
    api('PUT', `/v1/projects/${PROJECT}/event-endpoint`, project, { url: `http://127.0.0.1:${eventPort}/events` }),
    200,
    'set the event endpoint',
  );
  eventSecret = endpoint.secret;
  show(`${endpoint.url} (events signed with its whsec_ secret)`);

  step(`A wait call: queued, retried on the 5m schedule (RETRY_TIME_SCALE=${RETRY_TIME_SCALE}), resumes on success`);
  const queued = await expectStatus(
    api('POST', `/v1/agents/${AGENT}/tool-calls`, agent, {
      tool: agentName('flaky_lookup'),
      dialog_id: 'demo-dialog',
      arguments: { query: 'blue mugs' },
    }),
    202,
    'wait call',
  );
  show(`202 ${queued.status} (${queued.call_id})`);
  const event = events.eventOf(queued.call_id);
  const finished = await expectStatus(
    api('GET', `/v1/agents/${AGENT}/tool-calls/${queued.call_id}?wait=30`, agent),
    200,
    'wait',
  );
  const record = await expectStatus(
    api('GET', `/v1/apps/${app.id}/tool-calls/${queued.call_id}`, developer),
    200,
    'read call',
  );
  for (const attempt of record.attempts) {
    const said = attempt.response_excerpt ? `: ${attempt.response_excerpt}` : '';
    show(
      `attempt ${attempt.n}: ${attempt.outcome}${attempt.http_status ? ` ${attempt.http_status}` : ''} in ${attempt.duration_ms} ms${said}`,
    );
  }
  if (finished.status !== 'succeeded')
    throw new Error(`the wait call ended ${finished.status}: ${JSON.stringify(finished.error)}`);
  show(`${finished.status}: ${finished.result_text}`);
  const told = await withinSeconds(event, 30, 'the tool_call.finished event');
  show(
    `the host is told: ${told.type} ${told.call.call_id} ${told.call.status}, the dialog resumes with: ${told.call.result_text}`,
  );

  step(`An MCP client connects to the agent endpoint ${toolgate.baseUrl}/v1/agents/${AGENT}/mcp`);
  const client = new Client({ name: 'toolgate-demo', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${toolgate.baseUrl}/v1/agents/${AGENT}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agent}` } },
    }),
  );
  try {
    const listed = await client.listTools();
    show(`tools/list: ${listed.tools.map((tool) => tool.name).join(', ')}`);
    const called = await client.callTool({ name: agentName('find_customer'), arguments: { customer_id: '7' } });
    const text = (called.content as { type: string; text?: string }[])
      .map((part) => part.text ?? `[${part.type}]`)
      .join(' ');
    if (called.isError) throw new Error(`tools/call failed: ${text}`);
    show(`tools/call ${agentName('find_customer')}: ${text}`);
  } finally {
    await client.close();
  }
}

const env = loadEnvOrExit();
if (env.AUTH_JWKS_URL && !env.AUTH_JWT_SECRET) {
  console.error(
    'AUTH_JWKS_URL is set: the demo signs its own HS256 tokens; unset it (or set AUTH_JWT_SECRET) to run it.',
  );
  process.exit(2);
}
const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-demo-'));
chmodSync(dataDir, 0o755); // as root, Postgres runs as the `postgres` user, which must reach its data directory
const logFile = join(dataDir, 'toolgate.log');
const handlers: ChildProcess[] = [];
const servers: Server[] = [];
let toolgate: LocalToolgate | undefined;
let failed = false;
try {
  const port = await freePort();
  step('Starting Toolgate (as npm start does, with throw-away data)');
  toolgate = await startLocalToolgate({
    dataDir,
    persistent: false,
    env: {
      ...process.env,
      PORT: String(port),
      WORKER_METRICS_PORT: '0',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ALLOW_PRIVATE_NETWORK: 'true', // the example handler runs on this machine
      RETRY_TIME_SCALE,
    },
    say: show,
    output: { file: logFile },
    onUnexpectedExit: (name, how) => {
      console.error(`  ${name} ${how}; its log is in ${logFile}`);
      process.exit(1);
    },
  });
  await waitUntilReady(`http://127.0.0.1:${port}`);
  show(`API on http://127.0.0.1:${port} (docs at /docs), worker running; logs in ${logFile}`);
  await demo(
    { baseUrl: `http://127.0.0.1:${port}`, jwtSecret: env.AUTH_JWT_SECRET ?? DEVELOPMENT_JWT_SECRET },
    handlers,
    servers,
  );
  step('Every step succeeded. Next: the same steps by hand in the README ("Try it"), with npm start.');
} catch (error) {
  failed = true;
  console.error(`\n✖ ${(error as Error).message}\n  Toolgate's log: ${logFile}`);
} finally {
  for (const handler of handlers) handler.kill('SIGTERM');
  for (const server of servers) server.close();
  await toolgate?.stop();
  if (!failed) rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
