import type { ProjectToolCall } from '../../../../../libs/domain/src/index.js';
import { presentAttempt, presentCallWithAttempts } from '../../developers/tool-calls/tool-calls.presenter.js';

/** A call as its project reads it: the developer's view, plus the tool_call.finished events sent for it. */
export function presentProjectCall(call: ProjectToolCall) {
  return {
    ...presentCallWithAttempts(call),
    events: call.events.map((event) => ({
      id: event.id,
      round: event.round,
      status: event.status,
      created_at: event.createdAt.toISOString(),
      finished_at: event.finishedAt?.toISOString() ?? null,
      error: event.error ?? null,
      attempts: event.attempts.map(presentAttempt),
    })),
  };
}
