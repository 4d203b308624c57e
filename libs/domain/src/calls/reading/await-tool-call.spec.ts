import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseEnv } from '../../../../config/src/index.js';
import {
  type CallStatus,
  type DatabasePool,
  type PrismaService,
  type ToolCall,
  ToolCallLedger,
} from '../../../../persistence/src/index.js';
import { CallSignals } from '../../../../broadcast/src/index.js';
import { AwaitToolCall, DEGRADED_REREAD_MS, SAFETY_REREAD_MS } from './await-tool-call.use-case.js';

const queued = { id: 'call_1', status: 'queued' } as ToolCall;

/** A call store whose status the test sets, counting reads (nothing else of it is reached). */
class CallStore extends ToolCallLedger {
  reads = 0;
  status: CallStatus = 'queued';

  constructor() {
    super({} as PrismaService, {} as DatabasePool);
  }

  override getById(): Promise<ToolCall> {
    this.reads += 1;
    return Promise.resolve({ ...queued, status: this.status });
  }
}

/** Call signals the test fires, never touching Redis. */
class FiredSignals extends CallSignals {
  fire: () => void = () => undefined;

  constructor(private readonly subscribed: Promise<boolean>) {
    super(parseEnv({}));
  }

  override watchFinish() {
    const finished = new Promise<void>((resolve) => (this.fire = resolve));
    return { finished, subscribed: this.subscribed, stop: () => undefined };
  }

  override onProgress() {
    return () => undefined;
  }
}

function fakes(subscribed: Promise<boolean>) {
  const calls = new CallStore();
  const signals = new FiredSignals(subscribed);
  const awaiter = new AwaitToolCall(calls, signals);
  return {
    awaiter,
    calls,
    finish: () => ((calls.status = 'succeeded'), signals.fire()),
    setStatus: (status: CallStatus) => (calls.status = status),
  };
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

  it('re-reads an instant call every second: no event announces its end', async () => {
    vi.useFakeTimers();
    const { awaiter, calls, setStatus } = fakes(Promise.resolve(true));
    const done = awaiter.execute(
      { ...queued, status: 'in_progress', executionMode: 'instant' },
      { deadlineMs: 60_000 },
    );
    await vi.advanceTimersByTimeAsync(1);
    setStatus('succeeded');
    await vi.advanceTimersByTimeAsync(DEGRADED_REREAD_MS);
    expect((await done).status).toBe('succeeded');
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
