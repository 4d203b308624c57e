import { z } from 'zod';

export const ToolCallSchema = z.strictObject({
  tool: z.string().min(1).max(64).meta({ description: 'The agent-facing name from GET /v1/agents/{agent_id}/tools' }),
  dialog_id: z.string().min(1).max(200),
  lead_id: z.string().min(1).max(200).nullable().optional(),
  arguments: z.unknown().optional().meta({ description: 'An object of parameter values; {}, null or missing mean none' }),
});

export const IdempotencyHeaderSchema = z.object({
  'Idempotency-Key': z.string().regex(/^[\x21-\x7e]{1,255}$/, 'must be 1–255 visible ASCII characters').optional(),
});

export const WaitQuerySchema = z.object({
  wait: z.coerce.number({ message: 'must be a number of seconds from 0 to 60' }).min(0, 'must be from 0 to 60').max(60, 'must be from 0 to 60').default(0),
});
