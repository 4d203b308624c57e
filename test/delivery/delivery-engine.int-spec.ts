// The delivery engine's contract, for every kind of delivery, as medium tests: the use cases against real Postgres (a
// fresh schema) and real Redis (a queue prefix of this file's), no HTTP in front, a real HTTP receiver behind. A new
// kind of delivery is proven by a short block here: its description (DeliveryKind) is all that differs.
import { Module, type INestApplicationContext, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { workerDomainImports } from '../../apps/worker/src/worker.module.js';
import { type Env, parseEnv } from '../../libs/config/src/index.js';
import { DeliveryEngine, ReconcileDeliveries } from '../../libs/domain/src/index.js';
import { Metrics } from '../../libs/observability/src/index.js';
import { PrismaService } from '../../libs/persistence/src/index.js';
import { DeliveryQueue, callFinishedJob, deliveryJobId, toolCallJob } from '../../libs/queue/src/index.js';
import { SecretBox } from '../../libs/secrets/src/index.js';
import { generateWebhookSecret } from '../../libs/signing/src/index.js';
import { verifyToolCall, verifyToolCallFinished } from '../../libs/verifier/src/index.js';
import { TEST_SECRETS_KEYS, freshDatabase } from '../support/test-api.js';
import { TEST_JWT_SECRET } from '../support/tokens.js';

const SCALE = 0.01; // the 5m schedule: 0, 150, 600, 1800, 3000 ms

/** An HTTP receiver that answers each request as told, and keeps what came. */
class Receiver {
  readonly received: { path: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
  answer: () => { status: number; body?: string } = () => ({ status: 200, body: '{"ok":true}' });
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        const { status, body } = this.answer();
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/** The log lines of the context `Attempts`, as the attempt log writes them. */
class AttemptLines implements LoggerService {
  readonly lines: { fields: Record<string, unknown>; text: string }[] = [];
  log(message: unknown, ...rest: unknown[]): void {
    if (rest.at(-1) !== 'Attempts') return;
    this.lines.push({ fields: message as Record<string, unknown>, text: String(rest[0]) });
  }
  error(): void {}
  warn(): void {}
}

let env: Env;
let context: INestApplicationContext;
let prisma: PrismaService;
let box: SecretBox;
let receiver: Receiver;
const logged = new AttemptLines();

beforeAll(async () => {
  const database = await freshDatabase();
  env = parseEnv({
    DATABASE_URL: database.databaseUrl,
    REDIS_URL: inject('redisUrl'),
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_KEYS: TEST_SECRETS_KEYS,
    ALLOW_PRIVATE_NETWORK: 'true',
    RETRY_TIME_SCALE: String(SCALE),
    QUEUE_PREFIX: `tg_${database.name}`,
  });

  // The worker's modules without its consumer and timers: the engine is driven here, job by job.
  @Module({ imports: workerDomainImports(env) })
  class DeliveryCore {}

  context = await NestFactory.createApplicationContext(DeliveryCore, { logger: logged });
  await context.init();
  prisma = context.get(PrismaService);
  box = context.get(SecretBox);
  receiver = await new Receiver().start();
}, 60_000);
afterAll(async () => {
  await context?.get(DeliveryQueue).queue.obliterate({ force: true });
  await context?.close();
  await receiver?.stop();
});
beforeEach(() => {
  receiver.answer = () => ({ status: 200, body: '{"ok":true}' });
});

const engine = () => context.get(DeliveryEngine);
const queue = () => context.get(DeliveryQueue).queue;
const id = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

/** An app of a developer, with its webhook secret (plain) and one wait tool on the 5m window. */
async function appWithSecret() {
  const secret = generateWebhookSecret();
  const developerId = id('dev');
  await prisma.developer.create({ data: { id: developerId } });
  const app = await prisma.app.create({
    data: {
      id: id('app'),
      developerId,
      name: id('n'),
      displayName: 'Engine',
      webhookSecretEnc: await box.encrypt(secret),
    },
  });
  return { app, secret };
}

/** A test call of a wait tool on the 5m window, stored queued for attempt 1 with its body, as accepted. */
async function queuedCall(appId: string, toolName: string, body: (eventId: string) => string = () => '{}') {
  const now = new Date();
  const eventId = `019d0000-0000-7000-8000-${randomBytes(6).toString('hex')}`;
  await prisma.httpTool.upsert({
    where: { appId_name: { appId, name: toolName } },
    update: {},
    create: {
      id: id('tool'),
      appId,
      name: toolName,
      titleRu: 't',
      titleEn: 't',
      descriptionRu: 'd',
      descriptionEn: 'd',
      handlerUrl: `${receiver.url}/hook`,
      parameters: [],
      executionMode: 'wait',
      attemptTimeoutS: 5,
      retryWindow: '5m',
    },
  });
  return prisma.toolCall.create({
    data: {
      id: id('call'),
      eventId,
      appId,
      installationId: 'test',
      projectId: 'test',
      agentId: 'test',
      toolInstanceId: 'test',
      toolKind: 'http',
      toolName,
      agentToolName: toolName,
      dialogId: 'test',
      executionMode: 'wait',
      retryWindow: '5m',
      attemptTimeoutS: 5,
      handlerUrl: `${receiver.url}/hook`,
      arguments: {},
      bodyEnc: await box.encrypt(body(eventId)),
      status: 'queued',
      round: 1,
      nextAttemptN: 1,
      nextAttemptAt: now,
      acceptedAt: now,
      updatedAt: now,
      test: true,
    },
  });
}

/** A project's event endpoint (its secret, plain) and a tool_call.finished event stored queued for attempt 1. */
async function queuedEvent(callId: string) {
  const projectId = id('p');
  const secret = generateWebhookSecret();
  await prisma.eventEndpoint.create({
    data: { id: id('endpoint'), projectId, url: `${receiver.url}/events`, secretEnc: await box.encrypt(secret) },
  });
  const now = new Date();
  const payload = { call_id: callId, status: 'succeeded', finished_at: now.toISOString(), result: { ok: true } };
  const event = await prisma.callEvent.create({
    data: {
      id: id('evt'),
      callId,
      round: 1,
      projectId,
      payload,
      status: 'queued',
      nextAttemptN: 1,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    },
  });
  return { event, secret, projectId };
}

/** The job of the attempt queued next, with how long it waits. */
async function queuedNext(jobId: string) {
  const job = await queue().getJob(jobId);
  return job ? { data: job.data as unknown, delay: job.opts.delay ?? 0 } : null;
}

function sampleOf(metrics: string, name: string, labels: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('the delivery engine, for a tool_call', () => {
  it('signs and sends the stored bytes, records the answer, logs and counts it, and queues a retry at its offset', async () => {
    const { app, secret } = await appWithSecret();
    const body = (eventId: string) => `{"event_id":"${eventId}","event_type":"tool_call","arguments":{}}`;
    const call = await queuedCall(app.id, 'ship', body);
    receiver.answer = () => ({ status: 503, body: '{"error":"busy-now-text"}' });
    const before = sampleOf(
      await context.get(Metrics).registry.metrics(),
      'toolgate_delivery_attempts_total',
      'delivery="tool_call",outcome="http_status"',
    );

    expect(await engine().deliverQueued(toolCallJob(call, 1))).toBe('queued');

    const [sent] = receiver.received.filter((r) => r.headers['webhook-id'] === call.eventId);
    expect(sent.body.toString()).toBe(body(call.eventId));
    expect(verifyToolCall(sent.body, sent.headers, secret).event_id).toBe(call.eventId);
    const [attempt] = await prisma.toolCallAttempt.findMany({ where: { callId: call.id } });
    expect(attempt).toMatchObject({
      n: 1,
      outcome: 'http_status',
      httpStatus: 503,
      responseExcerpt: '{"error":"busy-now-text"}',
    });
    const stored = await prisma.toolCall.findUniqueOrThrow({ where: { id: call.id } });
    expect(stored).toMatchObject({ status: 'queued', nextAttemptN: 2 });
    expect(stored.error).toMatchObject({ message: expect.stringContaining('busy-now-text') });
    const next = await queuedNext(deliveryJobId(toolCallJob(call, 2)));
    expect(next?.data).toEqual(toolCallJob(call, 2));
    expect(next?.delay).toBeGreaterThan(150 - 100);
    expect(next?.delay).toBeLessThanOrEqual(150);
    expect(logged.lines.find((line) => line.fields.call_id === call.id)).toMatchObject({
      fields: { delivery: 'tool_call', app_id: app.id, attempt: 1, outcome: 'http_status', http_status: 503 },
      text: expect.stringMatching(
        new RegExp(`^attempt 1 of ${call.id} \\(${app.id}, ship, a test call\\): http_status 503 in \\d+ ms$`),
      ),
    });
    const after = sampleOf(
      await context.get(Metrics).registry.metrics(),
      'toolgate_delivery_attempts_total',
      'delivery="tool_call",outcome="http_status"',
    );
    expect(after).toBe(before + 1);

    // The same job again (a duplicate or a stale one) is not due: nothing more is sent.
    expect(await engine().deliverQueued(toolCallJob(call, 1))).toBe('not due');
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === call.eventId)).toHaveLength(1);
  });
});

describe('the delivery engine, for a tool_call.finished event', () => {
  it('signs with the endpoint secret, records the answer, logs and counts it, retries on 5m, and 410 stops it', async () => {
    const { app } = await appWithSecret();
    const call = await queuedCall(app.id, 'report');
    const { event, secret, projectId } = await queuedEvent(call.id);
    receiver.answer = () => ({ status: 500, body: '{"message":"host-down-text"}' });

    expect(await engine().deliverQueued(callFinishedJob(event, 1))).toBe('queued');
    const [sent] = receiver.received.filter((r) => r.headers['webhook-id'] === event.id);
    expect(sent.path).toBe('/events');
    expect(verifyToolCallFinished(sent.body, sent.headers, secret)).toMatchObject({
      type: 'tool_call.finished',
      call: { call_id: call.id, status: 'succeeded', result: { ok: true } },
    });
    const attempts = () => prisma.callEventAttempt.findMany({ where: { eventId: event.id }, orderBy: { n: 'asc' } });
    expect(await attempts()).toEqual([
      expect.objectContaining({
        n: 1,
        outcome: 'http_status',
        httpStatus: 500,
        responseExcerpt: '{"message":"host-down-text"}',
      }),
    ]);
    const next = await queuedNext(deliveryJobId(callFinishedJob(event, 2)));
    expect(next?.data).toEqual(callFinishedJob(event, 2));
    expect(next?.delay).toBeGreaterThan(150 - 100);
    expect(next?.delay).toBeLessThanOrEqual(150);
    expect(logged.lines.find((line) => line.fields.event_id === event.id)).toMatchObject({
      fields: {
        delivery: 'tool_call.finished',
        call_id: call.id,
        project_id: projectId,
        attempt: 1,
        outcome: 'http_status',
      },
      text: expect.stringMatching(
        /^attempt 1 of tool_call\.finished evt_\S+ \(call_\S+, project p_\S+\): http_status 500 in \d+ ms$/,
      ),
    });
    const metrics = await context.get(Metrics).registry.metrics();
    expect(
      sampleOf(metrics, 'toolgate_delivery_attempts_total', 'delivery="tool_call.finished",outcome="http_status"'),
    ).toBeGreaterThanOrEqual(1);

    receiver.answer = () => ({ status: 410, body: '{"error":"endpoint-retired-text"}' });
    await queue().remove(deliveryJobId(callFinishedJob(event, 2)));
    expect(await engine().deliverQueued(callFinishedJob(event, 2))).toBe('failed');
    const ended = await prisma.callEvent.findUniqueOrThrow({ where: { id: event.id } });
    expect(ended).toMatchObject({ status: 'failed', nextAttemptN: null });
    expect(ended.error).toEqual({
      kind: 'gone',
      message: expect.stringContaining('endpoint-retired-text'),
      http_status: 410,
    });
    expect(await queuedNext(deliveryJobId(callFinishedJob(event, 3)))).toBeNull();
  });

  it('ends cancelled, nothing sent, when its endpoint was removed', async () => {
    const { app } = await appWithSecret();
    const call = await queuedCall(app.id, 'orphan');
    const { event, projectId } = await queuedEvent(call.id);
    await prisma.eventEndpoint.delete({ where: { projectId } });
    expect(await engine().deliverQueued(callFinishedJob(event, 1))).toBe('cancelled');
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === event.id)).toEqual([]);
    expect(await prisma.callEvent.findUniqueOrThrow({ where: { id: event.id } })).toMatchObject({
      status: 'cancelled',
    });
  });
});

describe('the reconciler, for every kind', () => {
  it('queues again the overdue attempts of calls and events whose jobs Redis lost, and leaves those it holds', async () => {
    const { app } = await appWithSecret();
    const call = await queuedCall(app.id, 'lost');
    const { event } = await queuedEvent(call.id);
    const past = new Date(Date.now() - 60_000);
    await prisma.toolCall.update({ where: { id: call.id }, data: { nextAttemptAt: past } });
    await prisma.callEvent.update({ where: { id: event.id }, data: { nextAttemptAt: past } });
    const reconcile = context.get(ReconcileDeliveries);
    const swept = async () => {
      let requeued = 0;
      let page = await reconcile.execute();
      requeued += page.requeued;
      while (page.next) {
        page = await reconcile.execute(page.next);
        requeued += page.requeued;
      }
      return requeued;
    };
    expect(await swept()).toBeGreaterThanOrEqual(2);
    expect(await queuedNext(deliveryJobId(toolCallJob(call, 1)))).not.toBeNull();
    expect(await queuedNext(deliveryJobId(callFinishedJob(event, 1)))).not.toBeNull();
    // Their jobs are in Redis now: the next sweep adds neither again.
    const [callJob, eventJob] = await Promise.all([
      queue().getJob(deliveryJobId(toolCallJob(call, 1))),
      queue().getJob(deliveryJobId(callFinishedJob(event, 1))),
    ]);
    await swept();
    expect((await queue().getJob(deliveryJobId(toolCallJob(call, 1))))?.timestamp).toBe(callJob?.timestamp);
    expect((await queue().getJob(deliveryJobId(callFinishedJob(event, 1))))?.timestamp).toBe(eventJob?.timestamp);
  });
});
