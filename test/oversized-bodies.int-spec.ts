// A body over 1 MiB is answered 413 while the client is still sending it, and the API goes on reading (and dropping)
// the rest, so that the client reads the 413 and ends its request instead of meeting a reset connection (EPIPE).
// What it drains is bounded.
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERSIZED_BODY_DRAIN_BYTES } from '../apps/api/src/common/oversized-bodies.js';
import { type TestApi, startTestApi } from './support/test-api.js';
import { developerToken } from './support/tokens.js';

const MIB = 1024 * 1024;

let api: TestApi;
let token: string;

beforeAll(async () => {
  api = await startTestApi();
  token = await developerToken('dev_bodies');
}, 60_000);
afterAll(() => api?.close());

interface Sent {
  status?: number;
  contentType?: string;
  body?: string;
  /** Whether every byte of the body was handed to the connection. */
  finished: boolean;
  /** The error the request met, if any (EPIPE, ECONNRESET…). */
  error?: string;
}

/**
 * POSTs `size` bytes with Node's http client in one `end()`, as a client with its body in hand does; settles once
 * the answer is read and the body is out (or the request failed), or after 20 s.
 */
function send(size: number, options: { chunked?: boolean } = {}): Promise<Sent> {
  return new Promise((resolve) => {
    const sent: Sent = { finished: false };
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      ...(options.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': size }),
    };
    const req = httpRequest(new URL('/v1/apps', api.baseUrl), { method: 'POST', headers });
    let read = false;
    const settle = () => {
      if ((read && sent.finished) || sent.error) resolve(sent);
    };
    setTimeout(() => resolve(sent), 20_000).unref();
    req.on('response', (res: IncomingMessage) => {
      sent.status = res.statusCode;
      sent.contentType = res.headers['content-type'];
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        sent.body = Buffer.concat(chunks).toString('utf8');
        read = true;
        settle();
      });
    });
    req.on('finish', () => {
      sent.finished = true;
      settle();
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      sent.error = error.code ?? error.message;
      settle();
    });
    req.end(Buffer.alloc(size, 'a'));
  });
}

/**
 * Sends `size` declared bytes over a bare socket as fast as it takes them; resolves with how many it could write and
 * the answer it read before the connection was closed.
 */
function sendRaw(size: number): Promise<{ written: number; answer: string }> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(api.baseUrl).port), '127.0.0.1');
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let written = 0;
    let answer = '';
    socket.on('data', (data) => (answer += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ written, answer }));
    const write = () => {
      while (written < size && !socket.destroyed) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', write);
      }
    };
    socket.write(
      `POST /v1/apps HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
    );
    write();
  });
}

function expectRefusal(sent: Sent) {
  expect(sent.status, JSON.stringify(sent)).toBe(413);
  expect(sent.contentType).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(sent.body ?? '')).toMatchObject({ status: 413, detail: 'The body is larger than 1 MiB.' });
}

describe('a body over 1 MiB', () => {
  it("of 32 MiB with its Content-Length is answered 413, which Node's http client reads and sends its body to the end", async () => {
    const sent = await send(32 * MIB);
    expectRefusal(sent);
    expect(sent.error).toBeUndefined();
    expect(sent.finished).toBe(true);
  });

  it('of 32 MiB sent chunked is answered 413 the same way', async () => {
    const sent = await send(32 * MIB, { chunked: true });
    expectRefusal(sent);
    expect(sent.error).toBeUndefined();
    expect(sent.finished).toBe(true);
  });

  it('of 32 MiB sent by fetch (undici) is answered 413', async () => {
    const response = await fetch(new URL('/v1/apps', api.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: Buffer.alloc(32 * MIB, 'a'),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ status: 413 });
    expect((await api.request('GET', '/health/live')).status).toBe(200);
  });

  it('is drained only up to a bound: past it the connection is cut, the 413 sent before', async () => {
    const { written, answer } = await sendRaw(1024 * MIB);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    expect(written).toBeGreaterThan(OVERSIZED_BODY_DRAIN_BYTES);
    expect(written).toBeLessThan(OVERSIZED_BODY_DRAIN_BYTES + 32 * MIB);
  });
});
