import { Injectable, Logger } from '@nestjs/common';
import { Metrics } from '../../../observability/src/index.js';
import type { AttemptLogEntry } from './delivery-kind.js';

/**
 * Every attempt of every kind of delivery (and of an MCP call) is told here once, by the process that made it: one
 * log line (ids, numbers and the outcome; never a body, an argument, an error text or a secret) and its metrics.
 */
@Injectable()
export class AttemptLog {
  private readonly logger = new Logger('Attempts');

  constructor(private readonly metrics: Metrics) {}

  record(entry: AttemptLogEntry): void {
    this.metrics.recordAttempt(entry.delivery, entry.outcome, entry.durationMs);
    this.logger.log(attemptLine(entry), attemptText(entry));
  }
}

function attemptLine(entry: AttemptLogEntry) {
  return {
    delivery: entry.delivery,
    ...entry.fields,
    round: entry.round,
    attempt: entry.n,
    outcome: entry.outcome,
    http_status: entry.httpStatus,
    duration_ms: entry.durationMs,
  };
}

/** The same, as a line a person reads: `attempt 2 of call_… (app_…, find_customer): http_status 404 in 35 ms`. */
function attemptText(entry: AttemptLogEntry): string {
  const round = entry.round > 1 ? ` (round ${entry.round})` : '';
  const status = entry.httpStatus === null ? '' : ` ${entry.httpStatus}`;
  return `attempt ${entry.n}${round} of ${entry.subject}: ${entry.outcome}${status} in ${entry.durationMs} ms`;
}
