import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode, type FieldProblem } from '../../../../libs/domain/src/index.js';
import { isDatabaseUnavailable } from '../../../../libs/persistence/src/index.js';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  [ErrorCode.BadRequest]: 400,
  [ErrorCode.Unauthenticated]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.ValidationFailed]: 422,
  [ErrorCode.ConfirmationRequired]: 428,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.Unavailable]: 503,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldProblem[];
  request_id?: string;
}

/** Builds an RFC 9457 problem; `type` names the error code. */
export function problem(status: number, code: string, detail: string, errors?: FieldProblem[]): ProblemDetails {
  return {
    type: `urn:toolgate:problem:${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...(errors ? { errors } : {}),
  };
}

/** Seconds a client is asked to wait before it retries a request refused because a dependency is down. */
const RETRY_AFTER_S = 5;

/** A dependency that is down or silent (Postgres here) is a 503 the client may retry, not an internal error. */
function dependencyProblem(error: unknown): ProblemDetails | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  const detail = `The database (Postgres) is not reachable right now: retry in ${RETRY_AFTER_S} s.`;
  return problem(503, ErrorCode.Unavailable, detail);
}

/** The raw error behind an HttpException Nest made from a body-parser or URL error. */
function bodyParserType(error: HttpException): string | undefined {
  const cause = error.cause as { type?: unknown } | undefined;
  return typeof cause?.type === 'string' ? cause.type : undefined;
}

/**
 * The one place errors become HTTP answers: every refusal is `application/problem+json`. An
 * unexpected error is logged with a correlation id and answered as "internal error" with that id:
 * no stack, SQL or secret ever leaves the process.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = this.adapterHost.httpAdapter;
    const response: unknown = host.switchToHttp().getResponse();
    const requestId = host.switchToHttp().getRequest<{ id?: unknown }>().id;
    const body = this.toProblem(error, typeof requestId === 'string' ? requestId : randomUUID());
    if (http.isHeadersSent(response)) {
      http.end(response);
      return;
    }
    const retryAfterS = error instanceof DomainError && error.retryAfterS !== undefined ? error.retryAfterS : undefined;
    if (retryAfterS !== undefined) http.setHeader(response, 'Retry-After', String(retryAfterS));
    else if (body.status === 503) http.setHeader(response, 'Retry-After', String(RETRY_AFTER_S));
    http.setHeader(response, 'Content-Type', 'application/problem+json; charset=utf-8');
    http.reply(response, JSON.stringify(body), body.status);
  }

  private toProblem(error: unknown, requestId: string): ProblemDetails {
    if (error instanceof DomainError) {
      return problem(STATUS_BY_CODE[error.code], error.code, error.detail, error.errors);
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const parserError = bodyParserType(error);
      if (parserError === 'entity.parse.failed')
        return problem(400, ErrorCode.BadRequest, 'The body is not valid JSON.');
      if (status === 413) return problem(413, ErrorCode.PayloadTooLarge, 'The body is larger than 1 MiB.');
      if (error.cause instanceof URIError)
        return problem(400, ErrorCode.BadRequest, 'The URL is not correctly percent-encoded.');
      if (status === 404) return problem(404, ErrorCode.NotFound, 'No such route: see /docs for the API.');
      if (status < 500)
        return problem(status, status === 405 ? 'method_not_allowed' : ErrorCode.BadRequest, error.message);
    }
    const unavailable = dependencyProblem(error);
    if (unavailable) {
      this.logger.warn({ request_id: requestId }, unavailable.detail);
      return unavailable;
    }
    this.logger.error({ request_id: requestId, error: describe(error) }, 'unhandled error');
    return {
      ...problem(500, 'internal_error', `Internal error. Quote request id ${requestId} when reporting it.`),
      request_id: requestId,
    };
  }
}

/** The error's class and message for the log: never the request, which may carry secrets. */
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}\n${error.stack ?? ''}`;
  return String(error);
}
