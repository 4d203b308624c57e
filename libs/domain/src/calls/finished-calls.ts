import { Injectable } from '@nestjs/common';
import type { TerminalStatus, ToolCall } from '../../../persistence/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { CallEvents } from '../../../broadcast/src/index.js';

/** What follows the end of a call, wherever it ends (an attempt, a cancel, a stop before an attempt, the reconciler). */
@Injectable()
export class FinishedCalls {
  constructor(
    private readonly metrics: Metrics,
    private readonly events: CallEvents,
  ) {}

  /**
   * Counts the call and wakes whoever waits on it. Not waited for: a lost event only delays a waiter to its
   * next read, and an instant call's answer need not wait a Redis round trip for it.
   */
  announce(call: Pick<ToolCall, 'id' | 'executionMode'>, status: TerminalStatus): void {
    this.metrics.callsFinished.inc({ mode: call.executionMode, status });
    void this.events.publishFinished(call.id).catch(() => undefined);
  }
}
