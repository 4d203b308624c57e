import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, withRequestScope } from './bounded-fetch.js';

let server: Server;
let url: string;
const agent = new Agent();
const fetchBounded = boundedFetch(() => agent);

/** Reads a body to its end (or its error). */
async function readToEnd(body: ReadableStream<Uint8Array> | null): Promise<void> {
  const reader = body?.getReader();
  let done = reader === undefined;
  while (reader && !done) ({ done } = await reader.read());
}

beforeAll(async () => {
  // An answer that starts and never ends, saying which Toolgate-internal headers the request carried.
  server = createServer((req, res) => {
    const internal = Object.keys(req.headers).filter((name) => name.startsWith('x-toolgate-'));
    res.writeHead(200, { 'content-type': 'text/plain', 'x-internal-headers': internal.join(',') || 'none' });
    res.write('first bytes');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await agent.close();
});

describe('an MCP request scope', () => {
  it('travels in a header that is taken out before the request leaves, and cuts its streams when it ends', async () => {
    let reading: Promise<void> | undefined;
    const seen = await withRequestScope(async (scope) => {
      const answer = await fetchBounded(url, { method: 'GET', headers: { ...scope.headers, 'x-api-key': 'k' } });
      reading = readToEnd(answer.body);
      return answer.headers.get('x-internal-headers');
    });
    expect(seen).toBe('none');
    await expect(reading).rejects.toThrow(/its stream was cut/);
  });

  it('cuts at once what a request opens after its scope ended (its caller gave up meanwhile)', async () => {
    const headers = await withRequestScope(async (scope) => Promise.resolve(scope.headers));
    const answer = await fetchBounded(url, { method: 'GET', headers });
    expect(answer.headers.get('x-internal-headers')).toBe('none');
    await expect(readToEnd(answer.body)).rejects.toThrow(/its stream was cut/);
  });

  it('names each scope with an id no other request shares', async () => {
    const ids = await Promise.all([1, 2, 3].map(() => withRequestScope(async (scope) => Promise.resolve(scope.id))));
    expect(new Set(ids).size).toBe(3);
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{12}\.\d+$/);
  });
});
