// One log line per attempt, in the process that made it (API: instant calls, test calls and some first attempts;
// worker: the rest): call id, app, tool, attempt n, outcome, HTTP status, duration; JSON when piped, naming the
// process in `service`; never a body, an argument or private data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/local-services.js';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { type AppProcess, type ProcessFixture, processFixture, startAppProcess } from './support/processes.js';
import { requester } from './support/test-api.js';
import { WebhookHandler } from './support/webhook-handler.js';

let fixture: ProcessFixture;
let handler: WebhookHandler;
let apiProcess: AppProcess;
let workerProcess: AppProcess;
let api: { request: ReturnType<typeof requester> };

beforeAll(async () => {
  fixture = await processFixture({ RETRY_TIME_SCALE: '0.001' });
  handler = await new WebhookHandler().start();
  const port = await freePort();
  apiProcess = startAppProcess('api', { ...fixture.env, PORT: String(port) });
  workerProcess = startAppProcess('worker', fixture.env);
  await apiProcess.waitForOutput(/Toolgate API on/);
  await workerProcess.waitForOutput(/Toolgate worker started/);
  api = { request: requester(`http://127.0.0.1:${port}`) };
}, 60_000);
afterAll(async () => {
  await apiProcess?.kill('SIGKILL');
  await workerProcess?.kill('SIGKILL');
  await handler?.stop();
  await fixture?.stop();
});

interface AttemptLine {
  service: string;
  context: string;
  msg: string;
  call_id: string;
  app_id: string;
  tool: string;
  attempt: number;
  outcome: string;
  http_status: number | null;
  duration_ms: number;
}

/** The attempt lines a process printed (JSON lines: its stdout is a pipe). */
function attemptLines(process: AppProcess): AttemptLine[] {
  return process
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as AttemptLine)
    .filter((line) => line.context === 'Attempts');
}

describe('attempt log lines', () => {
  it('are written once per attempt by the process that made it, a failed 404 attempt too, with no secret', async () => {
    const path = '/logs/wait';
    handler.on(path, ({ attempt }) =>
      attempt === 1 ? { status: 404, body: '{"error":"not-here-text"}' } : { status: 200, body: '{"ok":true}' },
    );
    handler.on('/logs/test', () => ({ status: 404 }));
    const ctx = await agentWithTools(api, [
      httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' }),
      httpTool({ name: 'probe', handler_url: handler.url('/logs/test') }),
    ]);
    handler.secrets = [ctx.app.webhook_secret];
    const accepted = await api.request('POST', `${ctx.base}/tool-calls`, {
      token: ctx.agent,
      body: { tool: agentFacingName(ctx.app), dialog_id: 'd1', arguments: { customer_id: 'argument-secret-1' } },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const callId = accepted.body.call_id as string;

    // A test call, instant, made by the API: its handler answers 404.
    const tried = await api.request('POST', `/v1/apps/${ctx.app.id}/tools/probe/test-calls`, {
      token: ctx.dev,
      body: { arguments: { customer_id: 'argument-secret-2' }, private_data: { token: 'private-secret-3' } },
    });
    expect(tried.body).toMatchObject({ status: 'failed', error: { http_status: 404 } });

    await eventually(
      async () => {
        const detail = await api.request('GET', `/v1/apps/${ctx.app.id}/tool-calls/${callId}`, { token: ctx.dev });
        expect(detail.body.status).toBe('succeeded');
        expect(attemptLines(workerProcess).some((line) => line.call_id === callId && line.attempt === 2)).toBe(true);
      },
      { timeoutMs: 30_000 },
    );

    const apiLines = attemptLines(apiProcess);
    const workerLines = attemptLines(workerProcess);
    const testLine = apiLines.find((line) => line.call_id === tried.body.call_id);
    expect(testLine).toMatchObject({
      service: 'api',
      app_id: ctx.app.id,
      tool: 'probe',
      attempt: 1,
      outcome: 'http_status',
      http_status: 404,
      duration_ms: expect.any(Number),
    });
    expect(testLine?.msg).toMatch(/^attempt 1 of call_\S+ \(app_\S+, probe, a test call\): http_status 404 in \d+ ms$/);
    expect(workerLines.find((line) => line.call_id === callId && line.attempt === 2)).toMatchObject({
      service: 'worker',
      outcome: 'success',
      http_status: 200,
    });
    // The wait call's first attempt: the API made it (a free slot) or the worker did; one line either way.
    const firsts = [...apiLines, ...workerLines].filter((line) => line.call_id === callId && line.attempt === 1);
    expect(firsts).toHaveLength(1);
    expect(firsts[0]).toMatchObject({ outcome: 'http_status', http_status: 404 });
    expect(workerLines.filter((line) => line.call_id === tried.body.call_id)).toEqual([]);

    const printed = apiProcess.output() + workerProcess.output();
    for (const secret of ['argument-secret-1', 'argument-secret-2', 'private-secret-3', 'not-here-text']) {
      expect(printed).not.toContain(secret);
    }
  }, 90_000);
});
