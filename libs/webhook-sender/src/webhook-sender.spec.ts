import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES, sendWebhook } from './webhook-sender.js';

// A real HTTP server on loopback, answering by path.
let server: Server;
let base: string;
/** Requests that reached the server, by path. */
const arrived = new Map<string, number>();
const agent = new Agent();

beforeAll(async () => {
  server = createServer((req, res) => {
    arrived.set(req.url ?? '', (arrived.get(req.url ?? '') ?? 0) + 1);
    req.resume();
    req.on('end', () => {
      if (req.url === '/ok') {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.write('{"found":');
        setTimeout(() => res.end('true}'), 5);
      } else if (req.url === '/endless') {
        res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no length declared
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const write = () => {
          if (!res.destroyed && res.write(chunk)) setImmediate(write);
          else if (!res.destroyed) res.once('drain', write);
        };
        write();
      } else if (req.url === '/stall') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial'); // and never ends
      } else if (req.url === '/busy') {
        res.on('close', () => undefined); // holds the only connection until the client gives up
      } else if (req.url === '/retry') {
        res.writeHead(503, { 'retry-after': '7' });
        res.end('{"error":"busy"}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** An attempt to `path` of the test server (or to `url`), through `dispatcher`. */
const send = (
  path: string,
  timeoutMs = 2000,
  { dispatcher = agent, url = `${base}${path}`, allowPrivateNetwork = true } = {},
) =>
  sendWebhook(dispatcher, {
    url,
    headers: { 'content-type': 'application/json' },
    body: '{"event_type":"tool_call"}',
    timeoutMs,
    allowPrivateNetwork,
  });

describe('sendWebhook', () => {
  it('gathers an answer sent in several chunks, with its status and content type', async () => {
    const result = await send('/ok');
    expect(result).toMatchObject({
      outcome: 'success',
      httpStatus: 200,
      contentType: 'application/json; charset=utf-8',
    });
    expect(result.body?.toString()).toBe('{"found":true}');
  });

  it('reads what a refusal says and when to come back', async () => {
    const result = await send('/retry');
    expect(result).toMatchObject({ outcome: 'http_status', httpStatus: 503, retryAfter: '7', error: 'answered 503' });
    expect(result.excerpt).toBe('{"error":"busy"}');
  });

  it('cuts an answer that grows past 1 MiB without declaring its length', async () => {
    const result = await send('/endless');
    expect(result).toMatchObject({
      outcome: 'response_too_large',
      httpStatus: 200,
      error: 'the response is larger than 1 MiB',
    });
    expect(result.body).toBeUndefined();
    expect(MAX_RESPONSE_BYTES).toBe(1024 * 1024);
  });

  it('ends at the attempt timeout when the body stops half way', async () => {
    const started = performance.now();
    const result = await send('/stall', 300);
    expect(result).toMatchObject({ outcome: 'timeout', error: 'no complete answer within 0.3 s' });
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('ends at the attempt timeout also while waiting for a connection of the app', async () => {
    const oneConnection = new Agent({ connections: 1 });
    const post = (path: string, timeoutMs: number) => send(path, timeoutMs, { dispatcher: oneConnection });
    try {
      const holding = post('/busy', 1500); // the app's one connection, held until it times out
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      expect(await post('/ok?queued', 300)).toMatchObject({ outcome: 'timeout' });
      expect(performance.now() - started).toBeLessThan(1000);
      expect(await holding).toMatchObject({ outcome: 'timeout' });
      // The connection is free now: the attempt that ended while waiting for it is not sent after all.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(arrived.get('/ok?queued')).toBeUndefined();
    } finally {
      await oneConnection.destroy();
    }
  });

  it('refuses a URL it cannot parse, and a private address unless allowed', async () => {
    expect(await send('', 100, { url: 'not a url' })).toMatchObject({
      outcome: 'network',
      error: 'could not reach the handler: invalid URL',
    });
    expect((await send('/ok', 100, { allowPrivateNetwork: false })).outcome).toBe('blocked_address');
  });
});
