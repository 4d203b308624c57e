import { z } from 'zod';

/** Documentation of every refusal (RFC 9457), not used to validate. */
export const ProblemSchema = z.object({
  type: z
    .string()
    .meta({ description: 'urn:toolgate:problem:<code>', example: 'urn:toolgate:problem:validation_failed' }),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().meta({ description: 'What is wrong and how to fix it' }),
  errors: z
    .array(
      z.object({
        path: z.string().meta({ description: 'Dotted path into the input, e.g. parameters.0.name' }),
        message: z.string(),
      }),
    )
    .optional()
    .meta({ description: 'With 422: each field that cannot be taken' }),
  request_id: z.string().optional().meta({ description: 'With 500: quote it to the operator' }),
});

/** A page of a list: `next_cursor` goes into `?cursor=` for the next page, null on the last. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() });
}
