import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  unstorableJsonProblems,
  unstorableTextProblem,
} from '../../../../libs/domain/src/index.js';

const UNSTORABLE_ID = 'Nothing has that id: ids never contain NUL (U+0000) or unpaired surrogates. Check the URL.';

/**
 * The global first pipe: a body or query that Postgres could not store (NUL, unpaired surrogates)
 * or that JSON.parse changed (Infinity, lost digits), or that nests too deep, is a 422 naming each
 * field; a path id that no row can have is a 404. Route pipes (zod) run after it.
 */
@Injectable()
export class StorableInputPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'param') {
      const texts = typeof value === 'string' ? [value] : Object.values((value ?? {}) as Record<string, unknown>);
      if (texts.some((text) => typeof text === 'string' && unstorableTextProblem(text))) {
        throw new DomainError(ErrorCode.NotFound, UNSTORABLE_ID);
      }
      return value;
    }
    if (metadata.type === 'body' || metadata.type === 'query') {
      const problems = unstorableJsonProblems(value, metadata.data ? [metadata.data] : []);
      if (problems.length > 0) throw DomainError.validation(problems);
    }
    return value;
  }
}
