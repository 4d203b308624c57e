/** Why a request was refused; the API maps each code to one HTTP status. */
export enum ErrorCode {
  BadRequest = 'bad_request',
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  NotFound = 'not_found',
  Conflict = 'conflict',
  PayloadTooLarge = 'payload_too_large',
  ValidationFailed = 'validation_failed',
  ConfirmationRequired = 'confirmation_required',
  RateLimited = 'rate_limited',
  Unavailable = 'unavailable',
}

export interface FieldProblem {
  /** Dotted path into the input, e.g. `parameters.0.name`. */
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldProblem[],
    /** For a 429 or 503: when to try again, sent as `Retry-After`. */
    readonly retryAfterS?: number,
  ) {
    super(detail);
  }

  static rateLimited(detail: string, retryAfterS: number): DomainError {
    return new DomainError(ErrorCode.RateLimited, detail, undefined, retryAfterS);
  }

  static validation(
    problems: FieldProblem[],
    detail = 'The request is invalid: see errors for each problem.',
  ): DomainError {
    return new DomainError(ErrorCode.ValidationFailed, detail, problems);
  }

  static notFound(what: string): DomainError {
    return new DomainError(ErrorCode.NotFound, `${what} was not found.`);
  }

  static conflict(detail: string): DomainError {
    return new DomainError(ErrorCode.Conflict, detail);
  }
}

/** Throws a 422 when any problem was found. */
export function assertNoProblems(problems: FieldProblem[]): void {
  if (problems.length > 0) throw DomainError.validation(problems);
}
