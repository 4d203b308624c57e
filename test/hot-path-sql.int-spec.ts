import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AppsRepository,
  DatabasePool,
  PrismaService,
  type NewToolCall,
  ToolCallLedger,
  ToolInstancesRepository,
} from '../libs/persistence/src/index.js';
import { Prisma } from '../libs/persistence/src/generated/client.js';
import {
  LEDGER_SQL,
  claimAttempts,
  createCalls,
  recordAttempts,
} from '../libs/persistence/src/tool-call-ledger.sql.js';
import { DeliveryQueue, toolCallJob } from '../libs/queue/src/index.js';
import { SecretBox } from '../libs/secrets/src/index.js';
import { eventually } from './support/eventually.js';
import { agentFacingName, agentWithTools, httpTool } from './support/fixtures.js';
import { type TestStack, startTestStack } from './support/test-stack.js';
import { WebhookHandler } from './support/webhook-handler.js';

const WITH_TOOL = { installation: { include: { app: true } }, httpTool: true } as const;
let stack: TestStack;
let handler: WebhookHandler;

beforeAll(async () => {
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ RETRY_TIME_SCALE: '0.001' });
});
afterAll(async () => {
  await stack.close();
  await handler.stop();
});

/** A wait call that failed once (503) then succeeded: every column of its row is set. */
async function deliveredCall() {
  const path = `/hook/${Math.random().toString(36).slice(2)}`;
  const ctx = await agentWithTools(
    stack.api,
    [httpTool({ handler_url: handler.url(path), execution_mode: 'wait', retry_window: '5m', configurable: true })],
    {
      instances: { find_customer: { title: 'Mine', configuration: { store: 's1' }, private_data: { token: 'tok-1' } } },
    },
  );
  handler.secrets = [ctx.app.webhook_secret];
  const found = { status: 200, body: '{"found":[1,"ü",null]}', headers: { 'content-type': 'application/json' } };
  handler.on(path, ({ attempt }) => (attempt < 2 ? { status: 503, body: 'busy' } : found));
  const tool = agentFacingName(ctx.app);
  const accepted = await stack.api.request('POST', `${ctx.base}/tool-calls`, {
    token: ctx.agent,
    body: { tool, dialog_id: 'd1', lead_id: 'l1', arguments: { customer_id: 'c1', with_orders: true } },
  });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const callId = accepted.body.call_id as string;
  const [instance] = ctx.instances as { id: string }[];
  await eventually(async () =>
    expect((await stack.api.sql('SELECT status FROM tool_calls WHERE id = $1', [callId]))[0].status).toBe('succeeded'),
  );
  return { ...ctx, callId, instanceId: instance.id };
}

describe('the hot path on pg prepared statements', () => {
  it('reads the same objects Prisma reads (Dates, parsed jsonb, numbers, nulls, relations)', async () => {
    const ctx = await deliveredCall();
    const nest = stack.api.app;
    const prisma = nest.get(PrismaService);
    const calls = nest.get(ToolCallLedger);

    const viaPrisma = await prisma.toolCall.findUnique({ where: { id: ctx.callId } });
    expect(viaPrisma?.bodyEnc).toEqual(expect.any(String));
    expect(viaPrisma?.result).toEqual({ found: [1, 'ü', null] });
    expect(viaPrisma?.firstAttemptAt).toBeInstanceOf(Date);
    expect(await calls.getById(ctx.callId)).toStrictEqual(viaPrisma);
    expect(await calls.getForAgent(ctx.projectId, ctx.agentId, ctx.callId)).toStrictEqual(viaPrisma);
    expect(await calls.getForAgent(ctx.projectId, 'someone-else', ctx.callId)).toBeNull();
    expect(await calls.getById('call_missing')).toBeNull();

    expect(await nest.get(AppsRepository).getById(ctx.app.id)).toStrictEqual(
      await prisma.app.findUnique({ where: { id: ctx.app.id } }),
    );
    const withTool = await nest.get(ToolInstancesRepository).getWithTool(ctx.instanceId);
    expect(withTool?.httpTool).not.toBeNull();
    expect(withTool).toStrictEqual(
      await prisma.toolInstance.findUnique({ where: { id: ctx.instanceId }, include: WITH_TOOL }),
    );
  });

  it('creates and claims a call as Prisma would have stored and returned it', async () => {
    const ctx = await deliveredCall();
    const nest = stack.api.app;
    const prisma = nest.get(PrismaService);
    const calls = nest.get(ToolCallLedger);
    const template = await prisma.toolCall.findUniqueOrThrow({ where: { id: ctx.callId } });
    const now = new Date();
    const draft: NewToolCall = {
      id: `${ctx.callId}_copy`,
      eventId: `${template.eventId.slice(0, -4)}ffff`,
      appId: template.appId,
      installationId: template.installationId,
      projectId: template.projectId,
      agentId: template.agentId,
      toolInstanceId: template.toolInstanceId,
      toolKind: 'http',
      toolName: template.toolName,
      agentToolName: template.agentToolName,
      dialogId: 'd2',
      leadId: null,
      executionMode: 'wait',
      retryWindow: '5m',
      attemptTimeoutS: 7,
      handlerUrl: template.handlerUrl,
      arguments: { nested: { list: [1, 2.5, 'x'] }, empty: {} },
      bodyEnc: null,
      status: 'queued',
      attemptDeadline: null,
      acceptedAt: now,
      test: false,
    };
    const created = await calls.create(draft);
    expect(created).toStrictEqual(await prisma.toolCall.findUnique({ where: { id: draft.id } }));
    expect(created).toMatchObject({
      ...draft,
      round: 1,
      nextAttemptN: 1,
      nextAttemptAt: now,
      updatedAt: now,
      result: null,
      error: null,
      finishedAt: null,
      attemptDeadline: null,
    });

    expect(await calls.claim({ callId: draft.id, round: 1, n: 2, marginMs: 5_000 })).toBeNull(); // not the attempt due
    const claimed = await calls.claim({ callId: draft.id, round: 1, n: 1, marginMs: 5_000 });
    expect(claimed?.call).toStrictEqual(await prisma.toolCall.findUnique({ where: { id: draft.id } }));
    expect(claimed?.call.status).toBe('in_progress');
    const deadline = claimed?.call.attemptDeadline as Date;
    expect(await calls.claim({ callId: draft.id, round: 1, n: 1, marginMs: 5_000 })).toBeNull(); // a live attempt holds it
    const afterDeadline = new Date(deadline.getTime() + 1);
    expect(await calls.claim({ callId: draft.id, round: 1, n: 1, marginMs: 5_000 }, afterDeadline)).not.toBeNull(); // a crash: taken again
  });

  it('stores the body with the call at accept and sends those bytes; a queued call without one is not sent', async () => {
    const ctx = await deliveredCall();
    const nest = stack.api.app;
    const prisma = nest.get(PrismaService);
    const box = nest.get(SecretBox);
    const accepted = await prisma.toolCall.findUniqueOrThrow({ where: { id: ctx.callId } });
    const [first, second] = handler.forEvent(accepted.eventId);
    expect(await box.decrypt(accepted.bodyEnc ?? '')).toBe(first.rawBody.toString());
    expect(second.rawBody.equals(first.rawBody)).toBe(true);

    // A queued call without a stored body (none is stored so now) has nothing to send: it ends cancelled, unsent.
    const now = new Date();
    const bodiless = {
      ...accepted,
      id: `${ctx.callId}_nobody`,
      eventId: `${accepted.eventId.slice(0, -4)}eeee`,
      bodyEnc: null,
      status: 'queued',
      nextAttemptN: 1,
      nextAttemptAt: now,
      firstAttemptAt: null,
      result: Prisma.DbNull,
      resultText: null,
      error: Prisma.DbNull,
      finishedAt: null,
      acceptedAt: now,
      updatedAt: now,
      arguments: { customer_id: 'c9' },
    } as const;
    await prisma.toolCall.create({ data: bodiless });
    await nest.get(DeliveryQueue).enqueue(toolCallJob(bodiless, 1));
    await eventually(async () => {
      const stored = await prisma.toolCall.findUniqueOrThrow({ where: { id: bodiless.id } });
      expect(stored.status).toBe('cancelled');
      expect(stored.error).toMatchObject({
        message: 'cancelled before attempt 1: the call has no stored webhook body',
      });
    });
    expect(handler.forEvent(bodiless.eventId)).toHaveLength(0);
  });

  it('claims for delivery with the app, installation, instance and tool as they are now, as Prisma reads them', async () => {
    const ctx = await deliveredCall();
    const nest = stack.api.app;
    const prisma = nest.get(PrismaService);
    const calls = nest.get(ToolCallLedger);
    const read = () => prisma.toolCall.findUniqueOrThrow({ where: { id: ctx.callId } });
    const app = await prisma.app.findUnique({ where: { id: ctx.app.id } });
    const instance = await prisma.toolInstance.findUnique({ where: { id: ctx.instanceId }, include: WITH_TOOL });
    const margin = 5_000;
    const requeue = (bodyEnc: string | null) =>
      prisma.toolCall.update({
        where: { id: ctx.callId },
        data: {
          status: 'queued',
          nextAttemptN: 3,
          bodyEnc,
          handlerUrl: 'https://old.example.com/h',
          attemptTimeoutS: 1,
        },
      });
    // The claim (and a replay's check) reads only what an attempt checks and needs: the app's switches and
    // secrets, the instance's switches and what a body is built from.
    const found = {
      app: app && {
        id: app.id,
        agentToolsEnabled: app.agentToolsEnabled,
        agentToolsMode: app.agentToolsMode,
        webhookSecretEnc: app.webhookSecretEnc,
        retiredWebhookSecrets: app.retiredWebhookSecrets,
      },
      installationExists: true,
      instance: instance && {
        id: instance.id,
        enabled: instance.enabled,
        privateDataRequired: instance.privateDataRequired,
        privateDataEnc: instance.privateDataEnc,
        configuration: instance.configuration,
      },
      httpToolExists: true,
    };

    expect(await calls.claim({ callId: ctx.callId, round: 1, n: 3, marginMs: margin })).toBeNull(); // succeeded: nothing to claim
    await requeue(null);
    expect(await calls.claim({ callId: ctx.callId, round: 1, n: 2, marginMs: margin })).toBeNull(); // not the attempt due
    const before = Date.now();
    const first = await calls.claim({ callId: ctx.callId, round: 1, n: 3, marginMs: margin });
    expect(first).toStrictEqual({ call: await read(), ...found });
    // The tool's current handler URL and timeout, and a deadline that timeout plus the margin away.
    const tool = instance?.httpTool;
    expect(first?.call).toMatchObject({
      status: 'in_progress',
      handlerUrl: tool?.handlerUrl,
      attemptTimeoutS: tool?.attemptTimeoutS,
    });
    const deadlineIn = (first?.call.attemptDeadline?.getTime() ?? 0) - before;
    expect(deadlineIn).toBeGreaterThanOrEqual((tool?.attemptTimeoutS ?? 0) * 1000 + margin - 50);
    expect(deadlineIn).toBeLessThanOrEqual((tool?.attemptTimeoutS ?? 0) * 1000 + margin + 1000);
    expect(await calls.claim({ callId: ctx.callId, round: 1, n: 3, marginMs: margin })).toBeNull(); // a live attempt holds it
    const pastDeadline = new Date((first?.call.attemptDeadline?.getTime() ?? 0) + 1);
    // A crash: taken again.
    expect(await calls.claim({ callId: ctx.callId, round: 1, n: 3, marginMs: margin }, pastDeadline)).not.toBeNull();

    await requeue('stored-body');
    expect(await calls.claim({ callId: ctx.callId, round: 1, n: 3, marginMs: margin })).toStrictEqual({
      call: await read(),
      ...found,
    });
    expect(await calls.currentTarget(ctx.callId)).toStrictEqual({ call: await read(), ...found });
  });

  it('batches writes that arrive together: each caller gets its own answer, a refused value fails only its own', async () => {
    const ctx = await deliveredCall();
    const nest = stack.api.app;
    const prisma = nest.get(PrismaService);
    const calls = nest.get(ToolCallLedger);
    const db = nest.get(DatabasePool);
    const template = await prisma.toolCall.findUniqueOrThrow({ where: { id: ctx.callId } });
    // The statements by name, as the ledger hands them to the pool (which sends them unnamed behind a pooler).
    const rows = vi.spyOn(db, 'rows');
    const count = vi.spyOn(db, 'count');
    const sent = () => [...rows.mock.calls, ...count.mock.calls].map(([statement]) => statement.name);
    try {
      const now = new Date();
      const drafts: NewToolCall[] = Array.from({ length: 20 }, (_, i) => ({
        id: `${ctx.callId}_b${i}`,
        eventId: `${template.eventId.slice(0, -4)}b${String(i).padStart(3, '0')}`,
        appId: template.appId,
        installationId: template.installationId,
        projectId: template.projectId,
        agentId: template.agentId,
        toolInstanceId: template.toolInstanceId,
        toolKind: 'http',
        toolName: template.toolName,
        agentToolName: template.agentToolName,
        dialogId: template.dialogId,
        leadId: template.leadId,
        executionMode: 'wait',
        retryWindow: '5m',
        attemptTimeoutS: template.attemptTimeoutS,
        handlerUrl: template.handlerUrl,
        arguments: { i },
        bodyEnc: `body-${i}`,
        status: 'queued',
        attemptDeadline: null,
        acceptedAt: now,
        test: false,
      }));
      const created = await Promise.all(drafts.map((draft) => calls.create(draft)));
      for (const [i, call] of created.entries()) {
        expect(call).toStrictEqual(await prisma.toolCall.findUnique({ where: { id: drafts[i]?.id } }));
      }
      expect(
        sent().some((name) => /^tool_calls_create_([2-9]|\d\d)$/.test(name)),
        sent().join(' '),
      ).toBe(true);

      // Claims: the attempt due of each, one not due, and one call claimed twice at once (one of the two wins).
      const ids = drafts.map((draft) => draft.id);
      const claims = await Promise.all([
        ...ids.map((id) => calls.claim({ callId: id, round: 1, n: 1, marginMs: 5_000 })),
        calls.claim({ callId: ids[0], round: 1, n: 2, marginMs: 5_000 }),
        calls.claim({ callId: ids[1], round: 1, n: 1, marginMs: 5_000 }),
      ]);
      expect(
        sent().some((name) => /^tool_calls_claim_([2-9]|\d\d)$/.test(name)),
        sent().join(' '),
      ).toBe(true);
      expect(claims[20]).toBeNull();
      expect([claims[1], claims[21]].filter(Boolean)).toHaveLength(1);
      for (const [i, id] of ids.entries()) {
        if (i === 1) continue;
        expect(claims[i]?.call).toStrictEqual(await prisma.toolCall.findUnique({ where: { id } }));
        expect(claims[i]).toMatchObject({
          call: { id, status: 'in_progress', bodyEnc: `body-${i}` },
          httpToolExists: true,
        });
      }

      // Records, in two rounds that each arrive together: in the first, the call cancelled meanwhile stays
      // cancelled (its attempt is recorded all the same); in the second, the state Postgres refuses fails alone.
      expect(await calls.cancel(ids[11], { kind: 'cancelled', message: 'by the test' }, now)).not.toBeNull();
      const attempt = { startedAt: now, durationMs: 12, outcome: 'success', httpStatus: 200, error: null } as const;
      const record = (id: string) => {
        const i = ids.indexOf(id);
        const transition = {
          status: i === 15 ? ('bogus' as 'succeeded') : 'succeeded',
          nextAttemptN: null,
          nextAttemptAt: null,
          firstAttemptAt: now,
          result: { i },
          resultText: `result ${i}`,
          error: null,
          finishedAt: now,
        } as const;
        const row = { ...attempt, id: `att_${id}`, callId: id, round: 1, n: 1, responseExcerpt: `ok ${i}` };
        return calls
          .record(row, transition, { executionMode: 'wait' })
          .then((moved) => moved !== null && moved.status === transition.status)
          .catch((error: { code?: string }) => error.code);
      };
      const batched = () => sent().filter((name) => /^tool_calls_record_(queued_)?([2-9]|\d\d)$/.test(name)).length;
      expect(await Promise.all(ids.slice(0, 12).map(record))).toEqual(ids.slice(0, 12).map((_, i) => i !== 11));
      expect(batched()).toBeGreaterThan(0);
      expect(await Promise.all(ids.slice(12).map(record))).toEqual(ids.slice(12).map((_, i) => i !== 3 || '23514'));
      expect(batched()).toBeGreaterThan(1);
      const rows = await prisma.toolCall.findMany({ where: { id: { in: ids } }, include: { attempts: true } });
      for (const row of rows) {
        const i = ids.indexOf(row.id);
        if (i === 15) {
          expect(row).toMatchObject({ status: 'in_progress', attempts: [] });
          continue;
        }
        expect(row).toMatchObject({
          status: i === 11 ? 'cancelled' : 'succeeded',
          ...(i === 11 ? {} : { result: { i }, resultText: `result ${i}` }),
          finishedAt: now,
        });
        expect(row.attempts).toMatchObject([
          { id: `att_${row.id}`, n: 1, outcome: 'success', responseExcerpt: `ok ${i}` },
        ]);
      }
    } finally {
      rows.mockRestore();
      count.mockRestore();
    }
  });

  it('prepares every statement of the ledger against the migrated schema: its SQL and the schema cannot drift', async () => {
    const batched = [createCalls, claimAttempts, recordAttempts].flatMap((sql) =>
      [1, 3].map((size) => sql.statement(size)),
    );
    const client = await stack.api.app.get(DatabasePool).pool.connect();
    try {
      for (const statement of [...Object.values(LEDGER_SQL), ...batched]) {
        const prepared = await client.query(`PREPARE drift_check AS ${statement.text}`).then(
          () => 'prepared',
          (error: Error) => `${statement.name}: ${error.message}`,
        );
        expect(prepared).toBe('prepared');
        await client.query('DEALLOCATE drift_check');
      }
    } finally {
      client.release();
    }
  });

  it('refuses a state outside its union: the CHECK constraints hold in Postgres', async () => {
    const ctx = await deliveredCall();
    const refused = async (sql: string) => {
      const error = await stack.api.sql(sql, [ctx.callId]).then(
        () => null,
        (caught: unknown) => caught as { code?: string; constraint?: string },
      );
      return { code: error?.code, constraint: error?.constraint };
    };
    expect(await refused("UPDATE tool_calls SET status = 'delivering' WHERE id = $1")).toEqual({
      code: '23514',
      constraint: 'tool_calls_status_check',
    });
    expect(await refused("UPDATE tool_calls SET retry_window = '2h' WHERE id = $1")).toMatchObject({
      constraint: 'tool_calls_retry_window_check',
    });
    expect(await refused("UPDATE tool_call_attempts SET outcome = 'ok' WHERE call_id = $1")).toMatchObject({
      constraint: 'tool_call_attempts_outcome_check',
    });
    const [row] = await stack.api.sql('SELECT status FROM tool_calls WHERE id = $1', [ctx.callId]);
    expect(row.status).toBe('succeeded');
  });

  it('runs Prisma and the hot path on one pool: the module gives Prisma the pool the repositories use', async () => {
    const db = new DatabasePool(stack.api.databaseUrl);
    const prisma = new PrismaService(db);
    try {
      const [viaPrisma] = await prisma.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      expect(db.pool.totalCount).toBe(1);
      const [viaPool] = await db.rows<{ pid: number }>(
        { name: 'backend_pid', text: 'SELECT pg_backend_pid() AS pid' },
        [],
      );
      expect(viaPool.pid).toBe(viaPrisma.pid);
      expect(db.pool.totalCount).toBe(1);
    } finally {
      await prisma.$disconnect();
      await db.end();
    }
    const nest = stack.api.app;
    expect(nest.get(DatabasePool).pool.totalCount).toBeGreaterThan(0);
  });
});
