import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ENV, type Env } from '../../../../config/src/index.js';
import { IdempotencyKeysRepository } from '../../../../persistence/src/index.js';
import type { AgentRef } from '../../agents/agent-ref.js';
import { DomainError } from '../../errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** The largest first answer kept whole for repeats; a larger one is kept as its `reduced` form. */
export const IDEMPOTENCY_REPLAY_MAX_BYTES = 64 * 1024;

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

export interface IdempotentAnswer {
  status: number;
  body: unknown;
  /** What repeats get when `body` is too large (or cannot be stored): small, and says where to read the rest. */
  reduced: () => unknown;
}

/** A hash of the request body that does not depend on key order. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The body kept for repeats: whole when at most IDEMPOTENCY_REPLAY_MAX_BYTES of JSON, else its reduced form. */
export function replayBody(answer: IdempotentAnswer): unknown {
  const size = Buffer.byteLength(JSON.stringify(answer.body) ?? 'null');
  return size <= IDEMPOTENCY_REPLAY_MAX_BYTES ? answer.body : answer.reduced();
}

/**
 * `Idempotency-Key` of one agent of one project, for 24 hours: the first accepted call's status
 * and body are stored and given back to a repeat (nothing is delivered again); the same key with
 * another body is refused (409). A refused first request (4xx) stores nothing, so the key can be
 * used again; a first request that crashed holds the key only for IDEMPOTENCY_LEASE_S.
 */
@Injectable()
export class IdempotentRequests {
  private readonly logger = new Logger('Idempotency');

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly keys: IdempotencyKeysRepository,
  ) {}

  async run(
    agent: AgentRef,
    key: string,
    body: unknown,
    action: () => Promise<IdempotentAnswer>,
  ): Promise<StoredResponse> {
    const owner = { projectId: agent.projectId, agentId: agent.agentId };
    const hash = requestHash(body);
    const reservedAt = new Date();
    const leaseUntil = new Date(reservedAt.getTime() + this.env.IDEMPOTENCY_LEASE_S * 1000);
    const existing = await this.keys.reserve(owner, key, hash, reservedAt, leaseUntil);
    if (existing) {
      if (existing.requestHash !== hash) {
        throw DomainError.conflict(
          'This Idempotency-Key was used with a different body: use a new key for a new call.',
        );
      }
      if (existing.statusCode === null) {
        const retryInS = Math.max(1, Math.ceil((existing.expiresAt.getTime() - reservedAt.getTime()) / 1000));
        throw DomainError.conflict(
          'A request with this Idempotency-Key is still being processed: retry in a moment ' +
            `(the key is free again within ${retryInS} s if it never finishes).`,
        );
      }
      return { status: existing.statusCode, body: existing.response, replayed: true };
    }
    let answer: IdempotentAnswer;
    try {
      answer = await action();
    } catch (error) {
      // Should the release fail too, the lease frees the key.
      await this.keys.release(owner, key, reservedAt).catch(() => undefined);
      throw error;
    }
    await this.store(owner, key, reservedAt, answer);
    return { status: answer.status, body: answer.body, replayed: false };
  }

  /** Keeps the answer for repeats; never fails the request whose call was made already. */
  private async store(owner: AgentRef, key: string, reservedAt: Date, answer: IdempotentAnswer): Promise<void> {
    const expiresAt = new Date(reservedAt.getTime() + IDEMPOTENCY_TTL_MS);
    try {
      await this.keys.complete(owner, key, reservedAt, answer.status, replayBody(answer) as never, expiresAt);
    } catch {
      // A body the database refuses (e.g. NUL in JSON): keep the small form, which names the call.
      const reduced = answer.reduced() as never;
      await this.keys.complete(owner, key, reservedAt, answer.status, reduced, expiresAt).catch((error: Error) => {
        this.logger.warn(`Idempotency-Key answer not stored (${error.message}); the key is free again after its lease`);
      });
    }
  }
}
