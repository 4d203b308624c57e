// Long calls over MCP: a `wait` tool run as a 2025-11-25 task (ext-tasks over the v2 SDK client, and the v1 SDK's own
// task API) against the real endpoint and worker, through retries, cancellation and restarts of the API and worker;
// and a plain client answered by MCP_WAIT_DEADLINE_S, whose late cancellation changes nothing.
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentToolsets } from '../../libs/domain/src/index.js';
import { agentFacingPrefix, agentWithTools, httpTool } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { connectAgentMcp } from '../support/mcp-clients.js';
import { type TestApi, startTestApi } from '../support/test-api.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

const SCALE = 0.05; // 5m window: attempts at 0, 0.75 s, 3 s, 9 s, 15 s; the MCP deadline is 2 s
const DEADLINE_S = '2';
let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ RETRY_TIME_SCALE: String(SCALE), MCP_WAIT_DEADLINE_S: DEADLINE_S });
}, 60_000);
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

async function waitAgent(path: string, options: { projectId?: string; api?: TestApi } = {}) {
  const ctx = await agentWithTools(
    options.api ?? stack.api,
    [httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m' })],
    options,
  );
  handler.secrets = [...handler.secrets, ctx.app.webhook_secret];
  return { ...ctx, tool: `${agentFacingPrefix(ctx.app)}find_customer` };
}

/** The v2 SDK client on the 2025-11-25 handshake (its default), the generation whose tasks the endpoint serves. */
async function v2Client(api: { baseUrl: string }, agentId: string, token: string) {
  const client = new V2Client({ name: 'tasks-v2', version: '1.0.0' });
  const url = new URL(`${api.baseUrl}/v1/agents/${agentId}/mcp`);
  await client.connect(new V2Transport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

async function v1Client(api: { baseUrl: string }, agentId: string, token: string) {
  const client = new V1Client({ name: 'tasks-v1', version: '1.0.0' });
  const url = new URL(`${api.baseUrl}/v1/agents/${agentId}/mcp`);
  await client.connect(new V1Transport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

function flaky(path: string, failures: number) {
  handler.on(path, ({ attempt }) =>
    attempt <= failures
      ? { status: 503 }
      : { status: 200, body: '{"done":true}', headers: { 'content-type': 'application/json' } },
  );
}

async function callOf(api: TestApi, base: string, token: string, callId: string) {
  const res = await api.request('GET', `${base}/tool-calls/${callId}`, { token });
  expect(res.status).toBe(200);
  return res.body as { call_id: string; status: string };
}

describe('a wait tool as a task', () => {
  it('is listed with execution.taskSupport "optional" (and the server offers tasks for tools/call)', async () => {
    const ctx = await waitAgent('/tasks/listed');
    const client = await v2Client(stack.api, ctx.agentId, ctx.agent);
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.find((t) => t.name === ctx.tool)?.execution).toEqual({ taskSupport: 'optional' });
      expect(tools.find((t) => t.name === 'toolgate-call-status')?.execution).toBeUndefined();
      expect(client.getServerCapabilities()?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
    } finally {
      await client.close();
    }
    // a 2026-07-28 client is served too (it is answered without a task, see decision 033)
    const modern = await connectAgentMcp(stack.api, 'v2', ctx.agentId, ctx.agent);
    try {
      expect((await modern.listTools()).tools.map((t) => t.name)).toEqual([ctx.tool, 'toolgate-call-status']);
    } finally {
      await modern.close();
    }
  }, 30_000);

  it('runs through its retries as a task whose id is the call id (ext-tasks on the v2 SDK client)', async () => {
    const path = '/tasks/ext-flaky';
    flaky(path, 2);
    const ctx = await waitAgent(path);
    const client = await v2Client(stack.api, ctx.agentId, ctx.agent);
    const session = createTaskSessionFromClient(client, { endpointId: `toolgate-${ctx.agentId}` });
    try {
      const execution = await session.callTool(ctx.tool, { customer_id: 'c1' }, { task: { preference: 'prefer' } });
      expect(execution.kind).toBe('task');
      const taskId = execution.handle!.taskId;
      expect(taskId).toMatch(/^call_/);
      expect((await callOf(stack.api, ctx.base, ctx.agent, taskId)).status).toMatch(/^(queued|in_progress)$/);
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as Record<string, any>;
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: '{"done":true}' }]);
      expect(result.structuredContent).toEqual({ done: true });
      expect(handler.at(path).length).toBe(3);
      expect((await callOf(stack.api, ctx.base, ctx.agent, taskId)).status).toBe('succeeded');
      expect((await session.task(taskId).snapshot()).status).toBe('completed');
    } finally {
      await session.close();
      await client.close();
    }
  }, 30_000);

  it("is accepted on the toolset its request loaded: the agent's toolset is read once per tools/call", async () => {
    const path = '/tasks/once';
    flaky(path, 0);
    const ctx = await waitAgent(path);
    const client = await v1Client(stack.api, ctx.agentId, ctx.agent);
    await client.listTools();
    const loads = vi.spyOn(stack.api.app.get(AgentToolsets), 'load');
    try {
      const stream = client.experimental.tasks.callToolStream({ name: ctx.tool, arguments: { customer_id: 'c1' } });
      for await (const message of stream) if (message.type === 'taskCreated') break;
      expect(loads).toHaveBeenCalledTimes(1);
      loads.mockClear();
      await client.callTool({ name: ctx.tool, arguments: { customer_id: 'c2' } });
      expect(loads).toHaveBeenCalledTimes(1);
    } finally {
      loads.mockRestore();
      await client.close();
    }
  }, 30_000);

  it('runs as a task with the v1 SDK client (its own 2025-11-25 task API): created, working, completed', async () => {
    const path = '/tasks/v1-flaky';
    flaky(path, 1);
    const ctx = await waitAgent(path);
    const client = await v1Client(stack.api, ctx.agentId, ctx.agent);
    try {
      await client.listTools();
      const seen: string[] = [];
      let taskId = '';
      let result: Record<string, any> | undefined;
      const stream = client.experimental.tasks.callToolStream({ name: ctx.tool, arguments: { customer_id: 'c1' } });
      for await (const message of stream) {
        seen.push(message.type);
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        if (message.type === 'result') result = message.result;
        if (message.type === 'error') throw message.error;
      }
      expect(seen[0]).toBe('taskCreated');
      expect(seen.at(-1)).toBe('result');
      expect(taskId).toMatch(/^call_/);
      expect(result?.structuredContent).toEqual({ done: true });
      expect(result?._meta).toMatchObject({
        'toolgate/call_id': taskId,
        'io.modelcontextprotocol/related-task': { taskId },
      });
      const task = await client.experimental.tasks.getTask(taskId);
      expect(task).toMatchObject({ taskId, status: 'completed', ttl: null });
      // an ended task cannot be cancelled
      await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/already finished/);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('is cancelled by tasks/cancel: the call stops retrying, and tasks/result gives the cancelled answer', async () => {
    const path = '/tasks/cancel';
    handler.on(path, () => ({ status: 500 }));
    const ctx = await waitAgent(path);
    const client = await v2Client(stack.api, ctx.agentId, ctx.agent);
    const session = createTaskSessionFromClient(client, { endpointId: `toolgate-${ctx.agentId}` });
    let taskId: string;
    try {
      const execution = await session.callTool(ctx.tool, { customer_id: 'c1' }, { task: { preference: 'require' } });
      taskId = execution.handle!.taskId;
      await eventually(() => expect(handler.at(path).length).toBeGreaterThanOrEqual(2), { timeoutMs: 10_000 });
      await execution.cancel();
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe('cancelled');
      expect((await callOf(stack.api, ctx.base, ctx.agent, taskId)).status).toBe('cancelled');
      const attempts = handler.at(path).length;
      await new Promise((resolve) => setTimeout(resolve, 7_000)); // past attempts 4 and 5 (9 s and 15 s × SCALE)
      expect(handler.at(path).length).toBe(attempts);
    } finally {
      await session.close();
      await client.close();
    }
    const v1 = await v1Client(stack.api, ctx.agentId, ctx.agent);
    try {
      const answer = await v1.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(answer.isError).toBe(true);
      expect((answer.content as { text: string }[])[0].text).toMatch(/^The call was cancelled: cancelled by the MCP/);
    } finally {
      await v1.close();
    }
  }, 40_000);

  it("survives restarts of the API and the worker, and is the agent's own: another agent's call id is not found", async () => {
    const path = '/tasks/restart';
    flaky(path, 3);
    const env = { RETRY_TIME_SCALE: String(SCALE), MCP_WAIT_DEADLINE_S: DEADLINE_S };
    const own = await startTestStack(env);
    const ctx = await waitAgent(path, { api: own.api });
    const client = await v2Client(own.api, ctx.agentId, ctx.agent);
    const session = createTaskSessionFromClient(client, { endpointId: `toolgate-${ctx.agentId}` });
    const execution = await session.callTool(ctx.tool, { customer_id: 'c1' }, { task: { preference: 'prefer' } });
    const taskId = execution.handle!.taskId;
    await execution.detach();
    await session.close();
    await client.close();
    await eventually(() => expect(handler.at(path).length).toBeGreaterThanOrEqual(1), { timeoutMs: 10_000 });

    // every process goes; new ones over the same database and queue take the call on
    await own.stopWorker();
    await own.api.close();
    const api = await startTestApi(env, own.api);
    await own.startWorker();
    try {
      const other = await waitAgent('/tasks/other', { projectId: ctx.projectId, api });
      const stranger = await v1Client(api, other.agentId, other.agent);
      try {
        await expect(stranger.experimental.tasks.getTask(taskId)).rejects.toThrow(/Task not found/);
        await expect(stranger.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/Task not found/);
      } finally {
        await stranger.close();
      }

      const again = await v2Client(api, ctx.agentId, ctx.agent);
      const resumed = createTaskSessionFromClient(again, { endpointId: `toolgate-${ctx.agentId}` });
      try {
        const outcome = await resumed.task(taskId).result();
        const result = resultFromTaskOutcome(outcome) as Record<string, any>;
        expect(result.structuredContent).toEqual({ done: true });
        expect(handler.at(path).length).toBe(4);
      } finally {
        await resumed.close();
        await again.close();
      }
    } finally {
      await own.stopWorker();
      await api.close();
    }
  }, 60_000);
});

describe('a client that asks for no task', () => {
  /** A bare 2025-11-25 JSON-RPC client over fetch: what it sends is exactly what a plain client sends. */
  async function bareSession(api: TestApi, agentId: string, token: string) {
    const url = `${api.baseUrl}/v1/agents/${agentId}/mcp`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const post = async (message: Record<string, unknown>) => {
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...message }) });
      const text = await res.text();
      const data = text.split('\n').find((line) => line.startsWith('data: '));
      return { res, body: data ? JSON.parse(data.slice(6)) : text ? JSON.parse(text) : undefined };
    };
    const init = await post({
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bare', version: '1' } },
    });
    headers['mcp-session-id'] = init.res.headers.get('mcp-session-id')!;
    headers['mcp-protocol-version'] = '2025-11-25';
    await post({ method: 'notifications/initialized' });
    return post;
  }

  it('is answered within MCP_WAIT_DEADLINE_S; its cancellation after that answer changes nothing', async () => {
    const path = '/plain/slow';
    flaky(path, 2);
    const ctx = await waitAgent(path);
    const post = await bareSession(stack.api, ctx.agentId, ctx.agent);
    const started = Date.now();
    const answer = await post({
      id: 7,
      method: 'tools/call',
      params: { name: ctx.tool, arguments: { customer_id: 'x' } },
    });
    const tookMs = Date.now() - started;
    expect(tookMs).toBeLessThan(Number(DEADLINE_S) * 1000 + 1500);
    const text = answer.body.result.content[0].text as string;
    expect(text).toMatch(/^Still running after 2 s: call (call_[0-9a-f]+) .*toolgate-call-status/);
    const { _meta: meta } = answer.body.result;
    const callId = meta['toolgate/call_id'] as string;

    // the client gives up on request 7 only now (as an SDK client does at its own timeout): nothing changes
    const cancel = await post({ method: 'notifications/cancelled', params: { requestId: 7, reason: 'timeout' } });
    expect(cancel.res.status).toBe(202);
    const done = await eventually(
      async () => {
        const call = await callOf(stack.api, ctx.base, ctx.agent, callId);
        expect(call.status).toBe('succeeded');
        return call;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(done.call_id).toBe(callId);
    expect(handler.at(path).length).toBe(3);
  }, 30_000);
});
