import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { IdempotencyKeysRepository } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** A hash of the request body that does not depend on key order. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * `Idempotency-Key` for 24 hours: the first accepted call's status and body are stored and given
 * back to a repeat (nothing is delivered again); the same key with another body is refused (409).
 * A refused first request (4xx) stores nothing, so the key can be used again.
 */
@Injectable()
export class IdempotentRequests {
  constructor(private readonly keys: IdempotencyKeysRepository) {}

  async run(agentId: string, key: string, body: unknown, action: () => Promise<{ status: number; body: unknown }>): Promise<StoredResponse> {
    const hash = requestHash(body);
    const existing = await this.keys.reserve(agentId, key, hash, new Date(), IDEMPOTENCY_TTL_MS);
    if (existing) {
      if (existing.requestHash !== hash) {
        throw DomainError.conflict('This Idempotency-Key was used with a different body: use a new key for a new call.');
      }
      if (existing.statusCode === null) {
        throw DomainError.conflict('A request with this Idempotency-Key is still being processed: retry in a moment.');
      }
      return { status: existing.statusCode, body: existing.response, replayed: true };
    }
    try {
      const response = await action();
      await this.keys.complete(agentId, key, response.status, response.body as never);
      return { ...response, replayed: false };
    } catch (error) {
      await this.keys.release(agentId, key);
      throw error;
    }
  }
}
