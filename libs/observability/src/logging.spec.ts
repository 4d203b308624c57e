import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_SECRETS_KEYS, parseEnv } from '../../config/src/index.js';
import { JsonLogger, logDestination, logProcessWarnings, pinoOptions } from './logging.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('logging', () => {
  it('writes JSON lines and blanks out credentials, secrets and private data', () => {
    const { lines, stream } = capture();
    const logger = pino(pinoOptions(parseEnv({ LOG_LEVEL: 'info' }), 'api'), stream);
    logger.info(
      {
        req: { headers: { authorization: 'Bearer eyJ.secret', cookie: 'toolgate_operator=abc' } },
        body: {
          private_data: { token: 'pd-secret' },
          webhook_secret: 'whsec_x',
          mcp: { auth_header_value: 'Bearer mcp' },
        },
      },
      'request',
    );
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({ level: 30, service: 'api', msg: 'request' });
    expect(lines[0]).not.toMatch(/eyJ\.secret|abc|pd-secret|whsec_x|Bearer mcp/);
    expect(line.req.headers.authorization).toBe('[Redacted]');
  });

  it('serves Nest as a logger with the context on each line', () => {
    const { lines, stream } = capture();
    new JsonLogger(pino(pinoOptions(parseEnv({}), 'worker'), stream)).warn('queue error', 'Worker');
    expect(JSON.parse(lines[0])).toMatchObject({ level: 40, service: 'worker', context: 'Worker', msg: 'queue error' });
  });

  it('takes a message object with a text before the context, and an error, as Nest passes them', () => {
    const { lines, stream } = capture();
    const logger = new JsonLogger(pino(pinoOptions(parseEnv({}), 'api'), stream));
    logger.error({ request_id: 'req-1', error: 'boom' }, 'unhandled error', 'Errors');
    logger.warn(new Error('lost'), 'Queue');
    logger.debug('not at this level', 'Queue');
    logger.error('failed', 'Error: failed\n    at x.js:1', 'ExceptionsHandler');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 50,
      context: 'Errors',
      request_id: 'req-1',
      error: 'boom',
      msg: 'unhandled error',
    });
    expect(JSON.parse(lines[1])).toMatchObject({ level: 40, context: 'Queue', msg: 'lost' });
    expect(JSON.parse(lines[2])).toMatchObject({
      level: 50,
      context: 'ExceptionsHandler',
      msg: 'failed',
      stack: 'Error: failed\n    at x.js:1',
    });
  });
});

describe('log destination', () => {
  it('is one readable line per event at a terminal', () => {
    const { lines, stream } = capture();
    const terminal = Object.assign(stream, { isTTY: true });
    const logger = pino(pinoOptions(parseEnv({}), 'worker'), logDestination(parseEnv({}), terminal));
    logger.warn({ context: 'Reconciler' }, 'requeued 3 calls');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/WARN.*worker \[Reconciler\] requeued 3 calls/);
    expect(() => JSON.parse(lines[0])).toThrow();
  });

  it('is JSON on stdout when piped, and always in production', () => {
    expect(logDestination(parseEnv({}), Object.assign(capture().stream, { isTTY: false }))).toBeUndefined();
    const production = parseEnv({
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: 'x'.repeat(32),
      SECRETS_KEYS: DEVELOPMENT_SECRETS_KEYS,
    });
    expect(logDestination(production, Object.assign(capture().stream, { isTTY: true }))).toBeUndefined();
  });

  it("logs Node's own warnings as JSON lines instead of Node's plain text on stderr", async () => {
    const { lines, stream } = capture();
    const before = process.listeners('warning');
    try {
      logProcessWarnings(new JsonLogger(pino(pinoOptions(parseEnv({ LOG_LEVEL: 'info' }), 'worker'), stream)));
      expect(process.listeners('warning')).toHaveLength(1);
      process.emitWarning('11 ready listeners added', 'MaxListenersExceededWarning');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.removeAllListeners('warning');
      for (const listener of before) process.on('warning', listener);
    }
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 40,
        context: 'Process',
        msg: 'MaxListenersExceededWarning: 11 ready listeners added',
      }),
    ]);
  });
});
