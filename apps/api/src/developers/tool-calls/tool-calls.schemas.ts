import { z } from 'zod';
import { CALL_STATUSES, EXECUTION_MODES, RETRY_WINDOWS } from '../../../../../libs/domain/src/index.js';
import { ListQuerySchema } from '../../common/pagination.schemas.js';

export const ToolCallsQuerySchema = ListQuerySchema.extend({
  status: z.enum(CALL_STATUSES).optional(),
  tool_name: z.string().max(64).optional(),
  agent_id: z.string().max(200).optional(),
});

/** Documentation of the answers (not used to validate). */
export const CallErrorSchema = z
  .record(z.string(), z.unknown())
  .meta({ description: 'Why the call failed or was cancelled' });

export const ToolCallResponseSchema = z.object({
  id: z.string(),
  event_id: z.string(),
  status: z.enum(CALL_STATUSES),
  tool_name: z.string(),
  agent_tool_name: z.string(),
  execution_mode: z.enum(EXECUTION_MODES),
  retry_window: z.enum(RETRY_WINDOWS).nullable(),
  project_id: z.string(),
  agent_id: z.string(),
  installation_id: z.string(),
  tool_instance_id: z.string(),
  dialog_id: z.string(),
  lead_id: z.string().nullable(),
  arguments: z.unknown(),
  result: z.unknown(),
  error: CallErrorSchema.nullable(),
  round: z.number().int(),
  next_attempt_at: z.string().nullable(),
  accepted_at: z.string(),
  finished_at: z.string().nullable(),
  test: z.boolean().meta({ description: 'A test call its developer made (agent, project and dialog are "test")' }),
});

export const ToolCallWithAttemptsResponseSchema = ToolCallResponseSchema.extend({
  attempts: z.array(
    z.object({
      round: z.number().int(),
      n: z.number().int(),
      started_at: z.string(),
      duration_ms: z.number().int().nullable(),
      outcome: z.string(),
      http_status: z.number().int().nullable(),
      error: z.string().nullable(),
      response_excerpt: z.string().nullable(),
    }),
  ),
});
