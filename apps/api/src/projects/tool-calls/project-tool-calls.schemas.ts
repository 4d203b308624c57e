import { z } from 'zod';
import { CALL_STATUSES } from '../../../../../libs/domain/src/index.js';
import { ListQuerySchema } from '../../common/pagination.schemas.js';

export const ProjectToolCallsQuerySchema = ListQuerySchema.extend({
  agent_id: z.string().max(200).optional(),
  dialog_id: z.string().max(200).optional(),
  tool: z.string().max(64).optional().meta({ description: 'The agent-facing name the tool was called by' }),
  status: z.enum(CALL_STATUSES).optional(),
});
