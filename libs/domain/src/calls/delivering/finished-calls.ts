import { Injectable } from '@nestjs/common';
import type { MovedCall, TerminalStatus, ToolCall } from '../../../../persistence/src/index.js';
import { DeliveryQueue, callFinishedJob } from '../../../../queue/src/index.js';
import { Metrics } from '../../../../observability/src/index.js';
import { CallSignals } from '../../../../broadcast/src/index.js';

/** What follows the end of a call, wherever it ends (an attempt, a cancel, a stop before an attempt, the reconciler). */
@Injectable()
export class FinishedCalls {
  constructor(
    private readonly metrics: Metrics,
    private readonly signals: CallSignals,
    private readonly queue: DeliveryQueue,
  ) {}

  /**
   * Counts the call, wakes whoever waits on it, and queues its tool_call.finished event when its end stored one. Not
   * waited for: a lost message only delays a waiter to its next read (AwaitToolCall re-reads the call every
   * SAFETY_REREAD_MS), a lost add only delays the event to the reconciler.
   *
   * An instant call (an MCP tool's too) is announced to nobody: it ends within the request that made it, whose
   * answer is the first to carry its id, so no agent can be waiting on it (one that got the id meanwhile from the
   * developer's call list is answered by AwaitToolCall's re-read, each second for an instant call). Its end costs
   * no Redis message.
   */
  announce(
    call: Pick<ToolCall, 'id' | 'executionMode'> & Partial<Pick<MovedCall, 'projectId' | 'endEventId'>>,
    status: TerminalStatus,
  ): void {
    this.metrics.callsFinished.inc({ mode: call.executionMode, status });
    if (call.executionMode === 'instant') return;
    void this.signals.publishFinished(call.id).catch(() => undefined);
    // The statement that ended the call stored its tool_call.finished event; a failed add is the reconciler's.
    const { endEventId, projectId } = call;
    if (endEventId && projectId) void this.queue.enqueue(callFinishedJob({ id: endEventId, projectId }, 1));
  }
}
