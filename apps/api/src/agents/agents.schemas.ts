import { z } from 'zod';
import { CALL_STATUSES } from '../../../../libs/domain/src/index.js';

export const ToolCallSchema = z.strictObject({
  tool: z.string().min(1).max(64).meta({ description: 'The agent-facing name from GET /v1/agents/{agent_id}/tools' }),
  dialog_id: z.string().min(1).max(200),
  lead_id: z.string().min(1).max(200).nullable().optional(),
  arguments: z
    .unknown()
    .optional()
    .meta({ description: 'An object of parameter values; {}, null or missing mean none' }),
});

export const WaitQuerySchema = z.object({
  wait: z.coerce
    .number({ message: 'must be a number of seconds from 0 to 60' })
    .min(0, 'must be from 0 to 60')
    .max(60, 'must be from 0 to 60')
    .default(0),
});

/** Documentation of the answers (not used to validate). */
export const AgentToolsResponseSchema = z.object({
  data: z.array(
    z.object({
      name: z.string().meta({ description: 'What the agent calls it: `tool` of POST tool-calls' }),
      description: z.string(),
      parameters: z.record(z.string(), z.unknown()).meta({ description: 'The JSON Schema of `arguments`' }),
      tool_instance_id: z.string(),
      execution_mode: z.enum(['instant', 'wait', 'background']),
    }),
  ),
});

export const CallAnswerSchema = z.object({
  call_id: z.string(),
  status: z.enum(CALL_STATUSES),
  result: z.unknown().optional().meta({ description: 'When succeeded: what the handler answered' }),
  result_text: z
    .string()
    .nullable()
    .optional()
    .meta({ description: 'When succeeded: the result as text for the model' }),
  error: z.record(z.string(), z.unknown()).nullable().optional().meta({ description: 'When failed or cancelled' }),
  result_omitted: z
    .string()
    .optional()
    .meta({ description: 'A repeat of an Idempotency-Key whose first answer was too large' }),
});

export const AgentCallResponseSchema = CallAnswerSchema.extend({
  tool: z.string(),
  execution_mode: z.enum(['instant', 'wait', 'background']),
  accepted_at: z.string(),
  finished_at: z.string().nullable(),
});
