/** The first retry of a failed snapshot refresh comes this long after it (or after MCP_SNAPSHOT_TTL_S, if shorter). */
const FIRST_RETRY_MS = 30_000;
/** Retries are never further apart than this (or MCP_SNAPSHOT_TTL_S, if longer). */
const MAX_RETRY_MS = 3_600_000;

/**
 * When the worker tries an app's snapshot again after `failures` refreshes in a row failed, the last at
 * `attemptedAt`: 30 s after the first failure, twice as long after each next one, at most an hour apart. A server
 * that keeps failing (down, or answering what cannot be stored) is asked less and less often, never given up on.
 */
export function snapshotRetryAt(failures: number, attemptedAt: Date, ttlS: number): Date {
  const ttlMs = ttlS * 1000;
  const first = Math.min(FIRST_RETRY_MS, ttlMs);
  const most = Math.max(MAX_RETRY_MS, ttlMs);
  // the exponent is bounded too: 2 ** 1000 is Infinity
  const delay = Math.min(first * 2 ** Math.min(Math.max(failures, 1) - 1, 30), most);
  return new Date(attemptedAt.getTime() + delay);
}
