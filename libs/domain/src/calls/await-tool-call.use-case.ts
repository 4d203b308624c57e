import { Injectable } from '@nestjs/common';
import { type ToolCall, ToolCallsRepository } from '../../../persistence/src/index.js';
import { CallEvents, type CallProgress } from '../../../queue/src/index.js';
import { isTerminal } from './call-status.js';

/** Waits for a call to finish (or the deadline, or the caller giving up), passing its retry progress on. */
@Injectable()
export class AwaitToolCall {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly events: CallEvents,
  ) {}

  async execute(call: ToolCall, options: { deadlineMs: number; signal?: AbortSignal; onProgress?: (progress: CallProgress) => void }): Promise<ToolCall> {
    const until = Date.now() + options.deadlineMs;
    const stopProgress = options.onProgress ? await this.events.onProgress(call.id, options.onProgress) : () => undefined;
    try {
      let current = call;
      // Pub/sub answers at once; the re-read every second covers a missed message.
      while (!isTerminal(current.status) && Date.now() < until && !options.signal?.aborted) {
        await this.events.waitForFinish(call.id, Math.min(1000, until - Date.now()), options.signal);
        current = (await this.calls.getById(call.id)) ?? current;
      }
      return current;
    } finally {
      stopProgress();
    }
  }
}
