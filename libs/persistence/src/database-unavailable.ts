/** Prisma's codes for "the server could not be reached, closed the connection or did not answer in time". */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/** The driver adapter's kinds for the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'SocketTimeout', 'ConnectionClosed', 'TooManyConnections']);
/** SQLSTATEs: shutting down or starting (57P0x), statement timeout (57014), too many connections, class 08 (connection). */
const SQLSTATE = /^(57P0[1-3]|57014|53300|08...)$/;
/** Node's socket errors, as `pg` passes them on (Prisma's adapter names them with a kind instead). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** What the `pg` driver says when it gives up waiting for a connection or an answer. */
const DRIVER_MESSAGE = /timeout exceeded when trying to connect|Connection terminated|Query read timeout/;

/** A write waited too long for its turn on the database (statements ahead of it were not answered in time). */
export class DatabaseBusyError extends Error {
  override readonly name = 'DatabaseBusyError';
}

type ErrorLike = {
  name?: unknown;
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
};

/**
 * True when Postgres could not be reached or did not answer in time (down, restarting, silent,
 * out of connections): the request was not at fault and may be retried. Looks through causes.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const e = current as ErrorLike;
    if (e.name === 'PrismaClientInitializationError' || current instanceof DatabaseBusyError) return true;
    if (typeof e.code === 'string' && (PRISMA_CODES.has(e.code) || SQLSTATE.test(e.code) || SOCKET_CODES.has(e.code)))
      return true;
    if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
    if (typeof e.message === 'string' && DRIVER_MESSAGE.test(e.message)) return true;
    pending.push(e.cause, e.meta?.driverAdapterError);
  }
  return false;
}
