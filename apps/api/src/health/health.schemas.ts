import { z } from 'zod';
import { ProblemSchema } from '../common/problem.schemas.js';

/** Documentation of the answers (not used to validate). */
export const LiveResponseSchema = z.object({ status: z.literal('ok') });

const Checks = z.object({ postgres: z.enum(['up', 'down']), redis: z.enum(['up', 'down']) });

export const ReadyResponseSchema = z.object({ status: z.literal('ready'), checks: Checks });

export const NotReadyResponseSchema = ProblemSchema.extend({ checks: Checks });
