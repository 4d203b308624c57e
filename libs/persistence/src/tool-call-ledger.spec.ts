import { describe, expect, it } from 'vitest';
import { DatabasePool, type Statement } from './database-pool.js';
import type { PrismaService } from './prisma.service.js';
import {
  type AttemptRecord,
  type CallTransition,
  ToolCallLedger,
  postgresAway,
  worthRetryingAlone,
} from './tool-call-ledger.js';

const attempt: AttemptRecord = {
  id: 'att_1',
  callId: 'call_1',
  round: 1,
  n: 1,
  startedAt: new Date(),
  durationMs: 5,
  outcome: 'success',
  httpStatus: 200,
  error: null,
  responseExcerpt: 'odd',
};
const transition: CallTransition = {
  status: 'succeeded',
  nextAttemptN: null,
  nextAttemptAt: null,
  firstAttemptAt: new Date(),
  result: { odd: true },
  resultText: 'odd',
  error: null,
  finishedAt: new Date(),
};

/** A pool (never connected) whose statements fail with `failures` in turn, then answer one row; it keeps the values each got. */
class PoolFailing extends DatabasePool {
  readonly calls: unknown[][] = [];
  private readonly failures: Error[];

  constructor(...failures: Error[]) {
    super('postgresql://unused@127.0.0.1:1/unused');
    this.failures = failures;
  }

  override async rows<R>(_statement: Statement, values: unknown[]): Promise<R[]> {
    this.calls.push(values);
    const failure = this.failures.shift();
    if (failure) throw failure;
    return [{ id: 'call_1', status: 'succeeded' }] as R[];
  }
}

function poolFailing(...failures: Error[]) {
  const db = new PoolFailing(...failures);
  return { repository: new ToolCallLedger({} as PrismaService, db), calls: db.calls };
}

/** What `pg` throws when Postgres refuses a value: the SQLSTATE in `code`. */
const refused = (code: string) => Object.assign(new Error('invalid input'), { code });

describe('ToolCallLedger.record', () => {
  it('stores a minimal record when Postgres refuses the values, instead of throwing into a job retry', async () => {
    const { repository, calls } = poolFailing(refused('22P05'));
    await expect(repository.record(attempt, transition, { executionMode: 'wait' })).resolves.toMatchObject({
      id: 'call_1',
    });
    expect(calls).toHaveLength(2);
    expect(calls[1]).toContain('[the details could not be recorded]');
    expect(calls[1]).not.toContain('odd');
  });

  it('keeps the kind of a failure in the minimal record', async () => {
    const { repository, calls } = poolFailing(refused('54001'));
    const failed: CallTransition = {
      ...transition,
      status: 'failed',
      result: null,
      resultText: null,
      error: { kind: 'http_status', message: 'odd' },
    };
    await repository.record({ ...attempt, error: 'odd' }, failed, { executionMode: 'wait' });
    expect(calls[1]).toContain('{"kind":"http_status","message":"the details could not be recorded"}');
    expect(calls[1]).not.toContain('odd');
  });

  it('throws what is not about the values (Postgres away): the job is retried', async () => {
    const { repository, calls } = poolFailing(new Error('connection refused'));
    await expect(repository.record(attempt, transition, { executionMode: 'wait' })).rejects.toThrow(
      'connection refused',
    );
    expect(calls).toHaveLength(1);
  });
});

const pgError = (code: string) => Object.assign(new Error(code), { code });

describe("the ledger's batches", () => {
  it('run their items alone again after what one item may have caused, or a rolled back transaction', () => {
    for (const code of ['22P02', '22021', '54001', '23505', '23514', '21000', '40P01', '40001']) {
      expect(worthRetryingAlone(pgError(code)), code).toBe(true);
    }
    // Postgres away, a cancelled (timed out) statement, a lost connection, an error of the driver (the batch may
    // have been written): every item's answer as it is.
    expect(worthRetryingAlone(new RangeError('Invalid time value'))).toBe(false);
    for (const code of ['08006', '57014', '57P01', '53300'])
      expect(worthRetryingAlone(pgError(code)), code).toBe(false);
    expect(worthRetryingAlone(new Error('Connection terminated unexpectedly'))).toBe(false);
  });

  it('fail the writes waiting behind a statement that found Postgres away, not one its own timeout cancelled', () => {
    expect(postgresAway(pgError('57P01'))).toBe(true);
    expect(postgresAway(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(postgresAway(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(postgresAway(pgError('57014'))).toBe(false); // a lock on one row can cause it
    expect(postgresAway(pgError('23505'))).toBe(false);
  });
});
