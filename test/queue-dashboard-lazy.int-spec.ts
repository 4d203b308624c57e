// The queue dashboard (bull-board) is loaded by an operator's first request to it, not when the API starts.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, startTestApi } from './support/test-api.js';
import { signToken } from './support/tokens.js';

const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('@bull-board'));

let api: TestApi;
let loadedBeforeStart: boolean;

beforeAll(async () => {
  loadedBeforeStart = loaded(); // each test file runs in a process of its own
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

describe('the queue dashboard', () => {
  it('is loaded by the first operator request to it, not at start-up nor by a refused one', async () => {
    expect(loadedBeforeStart).toBe(false);
    expect(loaded()).toBe(false);
    expect((await api.request('GET', '/admin/queues/api/queues')).status).toBe(401);
    expect(loaded()).toBe(false);
    const operator = await signToken({ role: 'operator' });
    expect((await api.request('GET', '/admin/queues/api/queues', { token: operator })).status).toBe(200);
    expect(loaded()).toBe(true);
  });
});
