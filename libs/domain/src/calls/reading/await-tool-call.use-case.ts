import { Injectable } from '@nestjs/common';
import { type ToolCall, ToolCallLedger } from '../../../../persistence/src/index.js';
import { CallSignals, type CallProgress } from '../../../../broadcast/src/index.js';
import { isTerminal } from '../../../../persistence/src/index.js';

/** How often a waiter re-reads its call when pub/sub works: only a lost message is waited out this long. */
export const SAFETY_REREAD_MS = 15_000;
/** How often it re-reads while Redis cannot confirm the subscription. */
export const DEGRADED_REREAD_MS = 1_000;

/**
 * Waits for a call to finish (or the deadline, or the caller giving up), passing its retry
 * progress on. It wakes on the call's `finished` event; Postgres is read once after subscribing
 * (a finish just before is not missed), then only every SAFETY_REREAD_MS, or every second while
 * Redis is away or for an instant call (whose end no event announces). It never waits on Redis
 * beyond its own deadline.
 */
@Injectable()
export class AwaitToolCall {
  constructor(
    private readonly calls: ToolCallLedger,
    private readonly signals: CallSignals,
  ) {}

  async execute(
    call: ToolCall,
    options: { deadlineMs: number; signal?: AbortSignal; onProgress?: (progress: CallProgress) => void },
  ): Promise<ToolCall> {
    const until = Date.now() + options.deadlineMs;
    if (isTerminal(call.status) || options.deadlineMs <= 0 || options.signal?.aborted) return call;
    const watch = this.signals.watchFinish(call.id);
    const stopProgress = options.onProgress ? this.signals.onProgress(call.id, options.onProgress) : () => undefined;
    try {
      const confirmWithinMs = Math.min(DEGRADED_REREAD_MS, until - Date.now());
      const subscribed = await firstOf([watch.subscribed], confirmWithinMs, options.signal, false);
      // Nobody announces an instant call's end (FinishedCalls): a waiter that found one in progress reads it each second.
      const announced = subscribed && call.executionMode !== 'instant';
      const rereadMs = announced ? SAFETY_REREAD_MS : DEGRADED_REREAD_MS;
      let current = (await this.calls.getById(call.id)) ?? call;
      while (!isTerminal(current.status) && Date.now() < until && !options.signal?.aborted) {
        await firstOf([watch.finished], Math.min(rereadMs, until - Date.now()), options.signal, undefined);
        if (options.signal?.aborted) break;
        current = (await this.calls.getById(call.id)) ?? current;
      }
      return current;
    } finally {
      watch.stop();
      stopProgress();
    }
  }
}

/** The first of `promises` to settle, or `fallback` after `timeoutMs` or on abort. */
async function firstOf<T>(
  promises: Promise<T>[],
  timeoutMs: number,
  signal: AbortSignal | undefined,
  fallback: T,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, timeoutMs));
    onAbort = () => resolve(fallback);
    signal?.addEventListener('abort', onAbort);
  });
  try {
    return await Promise.race([...promises, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
