import { type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { DomainError, type FieldProblem } from '../../../../libs/domain/src/index.js';

/** Zod's issues as `{path, message}` problems; an unknown key is reported at its own path. */
export function zodProblems(issues: z.core.$ZodIssue[]): FieldProblem[] {
  return issues.flatMap((issue): FieldProblem[] => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: 'unknown field: remove it' }));
    }
    const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
    if (missing && path.length === 0)
      return [{ path: '', message: 'a JSON body is required, sent with Content-Type: application/json' }];
    return [{ path: path.join('.'), message: missing ? 'required' : issue.message }];
  });
}

/** Validates one input (body, query) with its zod schema; the result is the parsed value. */
export class ZodValidationPipe<T extends z.ZodType> implements PipeTransform<unknown, z.output<T>> {
  constructor(private readonly schema: T) {}

  transform(value: unknown): z.output<T> {
    const result = this.schema.safeParse(value);
    if (!result.success) throw DomainError.validation(zodProblems(result.error.issues));
    return result.data;
  }
}
