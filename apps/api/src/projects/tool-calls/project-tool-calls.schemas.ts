import { z } from 'zod';
import { CALL_STATUSES } from '../../../../../libs/domain/src/index.js';
import { ListQuerySchema } from '../../common/pagination.schemas.js';
import { ToolCallWithAttemptsResponseSchema } from '../../developers/tool-calls/tool-calls.schemas.js';

export const ProjectToolCallsQuerySchema = ListQuerySchema.extend({
  agent_id: z.string().max(200).optional(),
  dialog_id: z.string().max(200).optional(),
  tool: z.string().max(64).optional().meta({ description: 'The agent-facing name the tool was called by' }),
  status: z.enum(CALL_STATUSES).optional(),
});

const EventAttemptSchema = z.object({
  n: z.number().int(),
  started_at: z.string(),
  duration_ms: z.number().int(),
  outcome: z.string(),
  http_status: z.number().int().nullable(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable(),
});

/** Documentation of the answer (not used to validate): the call, its attempts and the events sent for it. */
export const ProjectToolCallResponseSchema = ToolCallWithAttemptsResponseSchema.extend({
  events: z
    .array(
      z.object({
        id: z.string().meta({ description: 'The webhook-id the event was sent with' }),
        round: z.number().int(),
        status: z.enum(CALL_STATUSES),
        created_at: z.string(),
        finished_at: z.string().nullable(),
        error: z
          .object({ kind: z.string(), message: z.string(), http_status: z.number().int().optional() })
          .nullable()
          .meta({ description: 'Why the event failed or was cancelled, with what the endpoint said; null otherwise' }),
        attempts: z.array(EventAttemptSchema),
      }),
    )
    .meta({ description: "The tool_call.finished events sent to the project's event endpoint when the call ended" }),
});
