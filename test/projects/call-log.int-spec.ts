import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { agentWithHandlerTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { WebhookHandler } from '../support/webhook-handler.js';

let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ RETRY_TIME_SCALE: '0.01' });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

const allSecrets: string[] = [];
const PRIVATE = { token: 'private-token-never-shown' };
const CONFIGURATION = { store: 'configured-store-never-shown' };

/** A project with two agents, each given a tool of its own app; the first tool is configurable with private data. */
async function projectWithTwoAgents() {
  const configured = { instances: { find_customer: { configuration: CONFIGURATION, private_data: PRIVATE } } };
  const first = await agentWithHandlerTool(stack.api, handler, { configurable: true }, configured);
  const second = await agentWithHandlerTool(
    stack.api,
    handler,
    { execution_mode: 'wait', retry_window: '5m' },
    { projectId: first.projectId },
  );
  allSecrets.push(first.app.webhook_secret, second.app.webhook_secret);
  handler.secrets = allSecrets; // the handler answers every app of the file
  return { first, second, log: (query = '') => `/v1/projects/${first.projectId}/tool-calls${query}` };
}

describe("a project's call log", () => {
  it("lists the calls of the project's agents newest first, filtered, page by page, never with a body", async () => {
    const { first, second, log } = await projectWithTwoAgents();
    const one = await first.call({ dialog_id: 'dialog-a' });
    const two = await first.call({ dialog_id: 'dialog-b' });
    const three = await second.call({ dialog_id: 'dialog-a' });
    expect([one.status, two.status, three.status]).toEqual([200, 200, 202]);
    await eventually(async () => expect((await second.read(three.body.call_id)).body.status).toBe('succeeded'));

    const all = await stack.api.request('GET', log(), { token: first.project });
    expect(all.status).toBe(200);
    expect(all.body.data.map((c: { id: string }) => c.id)).toEqual([
      three.body.call_id,
      two.body.call_id,
      one.body.call_id,
    ]);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.data[2]).toMatchObject({
      agent_id: first.agentId,
      dialog_id: 'dialog-a',
      agent_tool_name: first.toolName,
      status: 'succeeded',
      execution_mode: 'instant',
    });
    expect(all.text).not.toContain(PRIVATE.token);
    expect(all.text).not.toContain(CONFIGURATION.store);

    const ids = async (query: string) =>
      (await stack.api.request('GET', log(query), { token: first.project })).body.data.map((c: { id: string }) => c.id);
    expect(await ids(`?agent_id=${second.agentId}`)).toEqual([three.body.call_id]);
    expect(await ids('?dialog_id=dialog-a')).toEqual([three.body.call_id, one.body.call_id]);
    expect(await ids(`?tool=${first.toolName}`)).toEqual([two.body.call_id, one.body.call_id]);
    expect(await ids(`?tool=${first.toolName}&dialog_id=dialog-b&status=succeeded`)).toEqual([two.body.call_id]);
    expect(await ids('?status=failed')).toEqual([]);

    const page1 = await stack.api.request('GET', log('?limit=2'), { token: first.project });
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await stack.api.request('GET', log(`?limit=2&cursor=${page1.body.next_cursor}`), {
      token: first.project,
    });
    expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual([one.body.call_id]);
    expect(page2.body.next_cursor).toBeNull();

    const refused = await stack.api.request('GET', log('?status=lost&limit=0'), { token: first.project });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['limit', 'status']);
  });

  it('reads one call with every attempt: outcome, HTTP status, duration, error, response excerpt', async () => {
    const { second } = await projectWithTwoAgents();
    handler.on(second.path, ({ attempt }) =>
      attempt === 1 ? { status: 503, body: 'busy now' } : { status: 200, body: '{"ok":true}' },
    );
    const accepted = await second.call();
    await eventually(async () => expect((await second.read(accepted.body.call_id)).body.status).toBe('succeeded'));

    const read = await stack.api.request(
      'GET',
      `/v1/projects/${second.projectId}/tool-calls/${accepted.body.call_id}`,
      {
        token: second.project,
      },
    );
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: accepted.body.call_id, status: 'succeeded', result: { ok: true } });
    expect(read.body.attempts).toEqual([
      expect.objectContaining({ n: 1, outcome: 'http_status', http_status: 503, response_excerpt: 'busy now' }),
      expect.objectContaining({ n: 2, outcome: 'success', http_status: 200, error: null }),
    ]);
    expect(read.body.attempts[0].duration_ms).toEqual(expect.any(Number));
    expect(read.body.attempts[0].error).toEqual(expect.any(String));
    expect(read.body.events).toEqual([]); // no event endpoint
    expect(read.body).not.toHaveProperty('body');
    expect(read.body).not.toHaveProperty('private_data');
    expect(read.body).not.toHaveProperty('configuration');
  });

  it("keeps projects apart: another project's call is not found, and a token reads only its own project", async () => {
    const mine = await projectWithTwoAgents();
    const theirs = await projectWithTwoAgents();
    const theirCall = await theirs.first.call();
    expect(theirCall.status).toBe(200);

    const viaMine = await stack.api.request(
      'GET',
      `/v1/projects/${mine.first.projectId}/tool-calls/${theirCall.body.call_id}`,
      { token: mine.first.project },
    );
    expect(viaMine.status).toBe(404);
    expect(viaMine.headers.get('content-type')).toContain('application/problem+json');
    expect((await stack.api.request('GET', mine.log(), { token: mine.first.project })).body.data).toEqual([]);

    const theirLogWithMyToken = await stack.api.request('GET', theirs.log(), { token: mine.first.project });
    expect(theirLogWithMyToken.status).toBe(404);
    const theirCallWithMyToken = await stack.api.request(
      'GET',
      `/v1/projects/${theirs.first.projectId}/tool-calls/${theirCall.body.call_id}`,
      { token: mine.first.project },
    );
    expect(theirCallWithMyToken.status).toBe(404);
    const agentToken = await stack.api.request('GET', mine.log(), { token: mine.first.agent });
    expect(agentToken.status).toBe(403);
    const noToken = await stack.api.request('GET', mine.log());
    expect(noToken.status).toBe(401);
  });

  it('finds a page of a project by its index, not by reading every call', async () => {
    const client = new pg.Client({
      connectionString: stack.api.directUrl,
      options: `-c search_path=${stack.api.schema}`,
    });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const plan = await client.query(
        `EXPLAIN SELECT * FROM tool_calls WHERE project_id = $1 AND dialog_id = $2 ORDER BY id DESC LIMIT 21`,
        ['p1', 'd1'],
      );
      const text = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
      expect(text).toContain('tool_calls_project_id_id_idx');
    } finally {
      await client.end();
    }
  });
});
