import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../../../libs/domain/src/index.js';
import { problem } from './problem-details.filter.js';

const REFUSALS: Record<string, [status: number, code: string, reason: string, detail: string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'headers_too_large',
    'Request Header Fields Too Large',
    'The URL and headers are larger than 16 KiB: send a shorter URL or fewer headers.',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    'request_timeout',
    'Request Timeout',
    'The request did not arrive in time: send it again.',
  ],
  default: [400, ErrorCode.BadRequest, 'Bad Request', 'The request is not valid HTTP/1.1.'],
};

/**
 * The HTTP server's `clientError` answer: requests Node's HTTP parser refuses before the app sees
 * them (headers over 16 KiB, broken HTTP) get a problem+json too, with the statuses Node itself
 * would send (431, 408, 400).
 */
export function answerClientErrorWithProblem(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, reason, detail] = REFUSALS[error.code ?? ''] ?? REFUSALS.default;
  const body = JSON.stringify({ ...problem(status, code, detail), title: reason });
  const head = `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}`;
  socket.end(`${head}\r\nConnection: close\r\n\r\n${body}`);
}

/** Answers a Fastify request with a problem+json body (for answers given beside Nest's exception filter). */
export function sendProblem(reply: FastifyReply, status: number, code: string, detail: string): FastifyReply {
  return reply
    .code(status)
    .type('application/problem+json; charset=utf-8')
    .send(JSON.stringify(problem(status, code, detail)));
}

/**
 * Fastify's `frameworkErrors`: a URL it cannot route (bad percent-encoding) is refused before Nest
 * sees it, and gets the problem+json the exception filter gives a URIError.
 */
export function answerBadUrlWithProblem(
  error: Error & { code?: string },
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const detail =
    error.code === 'FST_ERR_BAD_URL'
      ? 'The URL is not correctly percent-encoded.'
      : 'The URL cannot be routed: see /docs for the API.';
  void sendProblem(reply.header('X-Request-Id', request.id), 400, ErrorCode.BadRequest, detail);
}
