/** The event type a project's endpoint is sent when a wait or background call ends. */
export const CALL_FINISHED_EVENT = 'tool_call.finished';

/**
 * The exact body of a tool_call.finished event, from the `call` object stored when the call ended: keys in the
 * contract's order (jsonb keeps none), so every attempt sends the same bytes.
 */
export function callEventBody(call: Record<string, unknown>): string {
  return JSON.stringify({
    type: CALL_FINISHED_EVENT,
    call: {
      call_id: call.call_id ?? null,
      agent_id: call.agent_id ?? null,
      dialog_id: call.dialog_id ?? null,
      lead_id: call.lead_id ?? null,
      tool: call.tool ?? null,
      execution_mode: call.execution_mode ?? null,
      status: call.status ?? null,
      result: call.result ?? null,
      result_text: call.result_text ?? null,
      error: call.error ?? null,
      finished_at: call.finished_at ?? null,
    },
  });
}
