import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ToolCall, ToolCallsRepository } from '../../../persistence/src/index.js';
import type { CallEvents } from '../../../broadcast/src/index.js';
import { AwaitToolCall, DEGRADED_REREAD_MS, SAFETY_REREAD_MS } from './await-tool-call.use-case.js';

const queued = { id: 'call_1', status: 'queued' } as ToolCall;

/** A call store whose status the test sets, counting reads, and call events the test fires. */
function fakes(subscribed: Promise<boolean>) {
  let status = 'queued';
  let fire: () => void = () => undefined;
  const calls = {
    reads: 0,
    async getById() {
      calls.reads += 1;
      return { ...queued, status };
    },
  };
  const events = {
    watchFinish: () => ({
      finished: new Promise<void>((resolve) => (fire = resolve)),
      subscribed,
      stop: () => undefined,
    }),
    onProgress: () => () => undefined,
  };
  const awaiter = new AwaitToolCall(calls as unknown as ToolCallsRepository, events as unknown as CallEvents);
  return { awaiter, calls, finish: () => ((status = 'succeeded'), fire()), setStatus: (s: string) => (status = s) };
}

afterEach(() => vi.useRealTimers());

describe('AwaitToolCall', () => {
  it('wakes on the finished event and reads the call only after subscribing and after the event', async () => {
    vi.useFakeTimers();
    const { awaiter, calls, finish } = fakes(Promise.resolve(true));
    const done = awaiter.execute(queued, { deadlineMs: 60_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls.reads).toBe(1);
    finish();
    expect((await done).status).toBe('succeeded');
    expect(calls.reads).toBe(2);
  });

  it('re-reads every SAFETY_REREAD_MS, so a lost message costs at most that', async () => {
    vi.useFakeTimers();
    const { awaiter, calls, setStatus } = fakes(Promise.resolve(true));
    const done = awaiter.execute(queued, { deadlineMs: 60_000 });
    await vi.advanceTimersByTimeAsync(1);
    setStatus('failed');
    await vi.advanceTimersByTimeAsync(SAFETY_REREAD_MS);
    expect((await done).status).toBe('failed');
    expect(calls.reads).toBe(2);
  });

  it('ends at its deadline, re-reading every second, when Redis never confirms the subscription', async () => {
    vi.useFakeTimers();
    const { awaiter, calls } = fakes(new Promise<boolean>(() => undefined));
    let result: ToolCall | undefined;
    void awaiter.execute(queued, { deadlineMs: 5_000 }).then((call) => (result = call));
    await vi.advanceTimersByTimeAsync(5_000 + 10);
    expect(result?.status).toBe('queued');
    expect(calls.reads).toBe(5_000 / DEGRADED_REREAD_MS);
  });

  it('gives up at once when the caller goes away', async () => {
    const { awaiter } = fakes(Promise.resolve(true));
    const abort = new AbortController();
    const started = Date.now();
    const done = awaiter.execute(queued, { deadlineMs: 60_000, signal: abort.signal });
    setTimeout(() => abort.abort(), 50);
    expect((await done).status).toBe('queued');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
