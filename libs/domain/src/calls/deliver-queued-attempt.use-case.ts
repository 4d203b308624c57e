import { Injectable } from '@nestjs/common';
import { type CallTarget, type ToolCall, ToolCallLedger } from '../../../persistence/src/index.js';
import type { DeliverToolCallJob } from '../../../queue/src/index.js';
import { ATTEMPT_DEADLINE_MARGIN_MS } from './call-transitions.js';
import { DeliverAttempt, type PreparedAttempt } from './deliver-attempt.use-case.js';
import type { DeliverySlot } from './delivery-gate.js';
import { FinishedCalls } from './finished-calls.js';
import { ToolCallBodies } from './tool-call-body.js';
import { whyCallStops } from './why-call-stops.js';

/**
 * Attempt `n` of a queued call (a worker's job, or the first attempt the API makes itself), prepared and made:
 * claimed in one statement that also reads the app, installation, instance and tool as they are now (taking the
 * tool's current handler URL and timeout); a call whose tool is gone or off ends cancelled without a request; else
 * its stored body (built when the call was accepted) goes to DeliverAttempt.
 */
@Injectable()
export class DeliverQueuedAttempt {
  constructor(
    private readonly calls: ToolCallLedger,
    private readonly bodies: ToolCallBodies,
    private readonly deliverAttempt: DeliverAttempt,
    private readonly finished: FinishedCalls,
  ) {}

  /**
   * The call after the attempt, or null when the attempt was not due (a stale or duplicate job). The `slot` the
   * attempt holds at its process's gate is released once the handler answered (the caller releases it otherwise).
   */
  async execute(
    attempt: Pick<DeliverToolCallJob, 'callId' | 'round' | 'n'>,
    slot?: DeliverySlot,
  ): Promise<ToolCall | null> {
    const { callId, round, n } = attempt;
    const claimed = await this.calls.claim({ callId, round, n, marginMs: ATTEMPT_DEADLINE_MARGIN_MS });
    if (!claimed) return null;
    const prepared = await this.prepare(claimed, n);
    return 'stopped' in prepared ? prepared.stopped : this.deliverAttempt.execute(prepared, slot);
  }

  private async prepare(claimed: CallTarget, n: number): Promise<PreparedAttempt | { stopped: ToolCall }> {
    const { call, app, instance } = claimed;
    const stops = whyCallStops(claimed);
    // No attempt is made, so none is recorded: the call just ends, saying what changed.
    if (stops || !app) return { stopped: await this.cancel(call, stops ?? 'the app was deleted') };
    // A test call has no instance; its body was built when it was made, as every call's is now.
    if (call.bodyEnc) return { call, app, body: await this.bodies.stored(call.bodyEnc), n };
    if (!instance) return { stopped: await this.cancel(call, 'the tool instance was deleted') };
    // A call accepted before bodies were built at accept time: built now, and stored before it is sent,
    // so that a later attempt, even after a crash during this one, sends the same bytes.
    const { body, bodyEnc } = await this.bodies.build(call, instance);
    await this.calls.storeBody(call.id, bodyEnc);
    return { call, app, body, n };
  }

  private async cancel(call: ToolCall, why: string): Promise<ToolCall> {
    const error = { kind: 'cancelled', message: `cancelled before attempt ${call.nextAttemptN}: ${why}` };
    const cancelled = await this.calls.cancel(call.id, error, new Date());
    if (!cancelled) return (await this.calls.getById(call.id)) ?? call;
    this.finished.announce(cancelled, 'cancelled');
    return cancelled;
  }
}
