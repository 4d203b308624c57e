import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../config/src/index.js';
import { JsonLogger, pinoOptions } from './logging.js';

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
    logger.info({
      req: { headers: { authorization: 'Bearer eyJ.secret', cookie: 'toolgate_operator=abc' } },
      body: { private_data: { token: 'pd-secret' }, webhook_secret: 'whsec_x', mcp: { auth_header_value: 'Bearer mcp' } },
    }, 'request');
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
});
