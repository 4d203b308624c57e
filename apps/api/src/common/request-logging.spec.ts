import { Readable, Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEnv } from '../../../../libs/config/src/index.js';
import { JsonLogger, pinoOptions } from '../../../../libs/observability/src/index.js';
import { echoRequestId, logRequests, requestIdOf } from './request-logging.js';

let server: FastifyInstance | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A Fastify server with the API's request hooks, and the JSON lines its logger writes. */
async function serve() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino(pinoOptions(parseEnv({ LOG_LEVEL: 'info' }), 'api'), stream);
  const nest = new JsonLogger(logger);
  server = Fastify({ genReqId: requestIdOf });
  echoRequestId(server);
  logRequests(server, logger);
  server.post('/v1/things', async (req) => {
    // A line of the handler names what it is about; the request's own line names the request.
    await new Promise((resolve) => setTimeout(resolve, 5));
    nest.warn(`got ${(req.body as { n: number }).n}`, 'Things');
    return { ok: true };
  });
  server.get('/v1/boom', async () => {
    throw new Error('boom');
  });
  server.get('/health/live', async () => ({ ok: true }));
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, lines };
}

describe('request logging', () => {
  it('logs one line per answer with the request id it echoes, credentials redacted, probes left out', async () => {
    const { url, lines } = await serve();
    // The body comes in two writes, the second later: it arrives on socket events, outside the request's context.
    const body = Readable.from(
      (async function* () {
        yield '{"n": 3, "pad": "';
        await new Promise((resolve) => setTimeout(resolve, 20));
        yield `${'x'.repeat(1000)}"}`;
      })(),
    );
    const answer = await request(`${url}/v1/things?secret=1`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': 'req-42',
        authorization: 'Bearer tok_never_logged',
      },
      body,
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['x-request-id']).toBe('req-42');
    await answer.body.dump();
    await request(`${url}/health/live`).then((r) => r.body.dump());
    const failed = await request(`${url}/v1/boom`);
    await failed.body.dump();
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(lines[0]).toMatchObject({ level: 40, context: 'Things', msg: 'got 3' });
    expect(lines[1]).toMatchObject({
      level: 30,
      msg: 'request completed',
      request_id: 'req-42',
      req: { method: 'POST', url: '/v1/things', headers: { authorization: '[Redacted]' } },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
    });
    expect(JSON.stringify(lines)).not.toMatch(/tok_never_logged|secret=1/);
    const rest = lines.slice(2).filter((line) => line.msg === 'request completed' || line.msg === 'request errored');
    expect(rest).toHaveLength(1); // the probe is not logged
    expect(rest[0]).toMatchObject({ level: 50, msg: 'request errored', res: { statusCode: 500 } });
    expect(rest[0].request_id).toEqual(failed.headers['x-request-id']);
  });
});
