import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../config/src/index.js';
import { CENSOR, CIRCULAR, TOO_DEEP, censored } from './log-censor.js';
import { pinoOptions } from './logging.js';

function lineOf(fields: object, message = 'event'): Record<string, any> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  pino(pinoOptions(parseEnv({ LOG_LEVEL: 'info' }), 'api'), stream).info(fields, message);
  return JSON.parse(lines[0]) as Record<string, any>;
}

describe('censored', () => {
  it('blanks out every censored key at any depth, in objects and arrays, and changes nothing it was given', () => {
    const given = {
      a: { b: { c: { d: { token: 'deep-token' } } } },
      list: [{ secret: 's1' }, 'plain', { nested: [{ private_data: { x: 1 } }] }],
      headers: { authorization: 'Bearer x', cookie: 'c', 'set-cookie': ['k=v'], 'idempotency-key': 'k1' },
      app: { webhook_secret: 'whsec_1', mcp: { auth_header_value: 'Bearer mcp' } },
      kept: 'visible',
    };
    const before = JSON.stringify(given);
    const out = censored(given);
    expect(out).toEqual({
      a: { b: { c: { d: { token: CENSOR } } } },
      list: [{ secret: CENSOR }, 'plain', { nested: [{ private_data: CENSOR }] }],
      headers: { authorization: CENSOR, cookie: CENSOR, 'set-cookie': CENSOR, 'idempotency-key': CENSOR },
      app: { webhook_secret: CENSOR, mcp: { auth_header_value: CENSOR } },
      kept: 'visible',
    });
    expect(JSON.stringify(given)).toBe(before);
  });

  it('answers the very same object when there is nothing to blank out', () => {
    const given = { a: { b: [1, { c: 'x' }] }, when: new Date(0), bytes: Buffer.from('token') };
    expect(censored(given)).toBe(given);
  });

  it('blanks out the fields of a class instance too, as the fields pino would write of it', () => {
    class Settings {
      constructor(
        readonly url: string,
        readonly token: string,
      ) {}
    }
    const line = lineOf({ settings: new Settings('https://m.example.com', 'settings-token') });
    expect(line.settings).toEqual({ url: 'https://m.example.com', token: CENSOR });
  });

  it('blanks out what an object with its own toJSON answers, as pino writes that and not its fields', () => {
    const settings = {
      url: 'https://m.example.com',
      toJSON: () => ({ url: 'https://m.example.com', token: 'json-token' }),
    };
    const line = lineOf({ settings });
    expect(line.settings).toEqual({ url: 'https://m.example.com', token: CENSOR });
    const plain = { when: new Date(0), toJSON: () => ({ note: 'nothing secret' }) };
    expect(censored(plain)).toBe(plain);
  });

  it('ends a toJSON that answers anew with a toJSON of its own, forever, as too deep', () => {
    const endless = (): object => ({ token: 'endless-token', toJSON: endless });
    expect(censored({ settings: endless() })).toEqual({ settings: TOO_DEEP });
  });

  it('keeps an error an error (class, message, stack) with its own fields and its cause censored', () => {
    class HttpFailure extends Error {}
    const cause = Object.assign(new Error('inner'), { token: 'cause-token' });
    const error = Object.assign(new HttpFailure('outer', { cause }), { config: { authorization: 'Bearer e' } });
    const line = lineOf({ err: error });
    // pino's error serializer writes the causes' messages after the error's own.
    expect(line.err).toMatchObject({ type: 'HttpFailure', message: 'outer: inner', config: { authorization: CENSOR } });
    expect(line.err.stack).toContain('outer');
    expect(JSON.stringify(line)).not.toMatch(/Bearer e|cause-token/);
    expect((error as unknown as { config: { authorization: string } }).config.authorization).toBe('Bearer e');
  });

  it('is what pino writes: a request line keeps its fields, its credentials blanked out', () => {
    const line = lineOf(
      {
        request_id: 'r-1',
        req: { method: 'POST', url: '/v1/x', headers: { 'user-agent': 'ua', authorization: 'Bearer t' } },
        res: { statusCode: 200 },
      },
      'request completed',
    );
    expect(line).toMatchObject({
      level: 30,
      service: 'api',
      msg: 'request completed',
      request_id: 'r-1',
      req: { method: 'POST', url: '/v1/x', headers: { 'user-agent': 'ua', authorization: CENSOR } },
      res: { statusCode: 200 },
    });
  });

  it('writes an object inside itself as pino would, and nothing past a depth: no censored key escapes either way', () => {
    const cyclic: Record<string, unknown> = { token: 'cyclic-token', list: [] };
    cyclic.self = cyclic;
    (cyclic.list as unknown[]).push(cyclic);
    let deep: Record<string, unknown> = { token: 'deep-token' };
    for (let i = 0; i < 15; i += 1) deep = { inner: deep };
    const line = lineOf({ cyclic, deep });
    expect(line.cyclic).toEqual({ token: CENSOR, list: [CIRCULAR], self: CIRCULAR });
    expect(JSON.stringify(line)).not.toMatch(/cyclic-token|deep-token/);
    expect(JSON.stringify(line)).toContain(TOO_DEEP);
  });
});
