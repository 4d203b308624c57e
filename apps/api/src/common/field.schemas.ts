import { z } from 'zod';
import { httpUrlProblem } from '../../../../libs/domain/src/index.js';

/** A string of `min`–`max` characters that is not only whitespace. */
export function text(min: number, max: number) {
  return z
    .string()
    .superRefine((value, ctx) => {
      if (value.length < min || value.length > max)
        ctx.addIssue({ code: 'custom', message: `must be ${min}–${max} characters` });
      else if (min > 0 && value.trim().length === 0) ctx.addIssue({ code: 'custom', message: 'must not be blank' });
    })
    .meta({ minLength: min, maxLength: max });
}

/** An absolute http(s) URL without credentials. */
export const HttpUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .superRefine((value, ctx) => {
    const problem = httpUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ format: 'uri', example: 'https://example.com/toolgate/hook' });

/** Refuses a field that may not change (e.g. `name`), with a message that says why. */
export function fixedField(message: string) {
  return z
    .unknown()
    .optional()
    .superRefine((value, ctx) => {
      if (value !== undefined) ctx.addIssue({ code: 'custom', message });
    });
}
