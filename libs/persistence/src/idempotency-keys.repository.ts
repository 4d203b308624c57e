import { Injectable } from '@nestjs/common';
import type { IdempotencyKey, Prisma } from './generated/client.js';
import { DatabasePool, utc } from './database-pool.js';
import { PrismaService } from './prisma.service.js';

/** Up to $2 expired markers (answers past 24 h, reservations past their lease) at $1. */
const PURGE_EXPIRED = {
  name: 'idempotency_keys_purge',
  text: `DELETE FROM idempotency_keys WHERE ctid IN (
    SELECT ctid FROM idempotency_keys WHERE expires_at <= $1::timestamp(3) LIMIT $2::int
  )`,
};

/** The owner of a key: one agent of one project (agent ids repeat across projects). */
export interface IdempotencyOwner {
  projectId: string;
  agentId: string;
}

/**
 * `Idempotency-Key` markers of agent calls: set if absent with a short lease, then the stored
 * first response. A marker's `createdAt` identifies its reservation: a request that outlived its
 * lease cannot overwrite or free the reservation that replaced it.
 */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DatabasePool,
  ) {}

  /** Reserves the key until `leaseUntil`; when it is already taken (and not expired), returns the existing marker. */
  async reserve(
    owner: IdempotencyOwner,
    key: string,
    requestHash: string,
    now: Date,
    leaseUntil: Date,
  ): Promise<IdempotencyKey | null> {
    const { projectId, agentId } = owner;
    await this.prisma.idempotencyKey.deleteMany({ where: { projectId, agentId, key, expiresAt: { lte: now } } });
    const inserted = await this.prisma.$executeRaw`
      INSERT INTO idempotency_keys (project_id, agent_id, key, request_hash, created_at, expires_at)
      VALUES (${projectId}, ${agentId}, ${key}, ${requestHash}, ${now}, ${leaseUntil})
      ON CONFLICT DO NOTHING`;
    if (inserted === 1) return null;
    return this.prisma.idempotencyKey.findUnique({ where: { projectId_agentId_key: { projectId, agentId, key } } });
  }

  /** Stores the first response of the reservation made at `reservedAt`, kept until `expiresAt`. */
  async complete(
    owner: IdempotencyOwner,
    key: string,
    reservedAt: Date,
    statusCode: number,
    response: Prisma.InputJsonValue,
    expiresAt: Date,
  ): Promise<void> {
    await this.prisma.idempotencyKey.updateMany({
      where: { ...owner, key, createdAt: reservedAt, statusCode: null },
      data: { statusCode, response, expiresAt },
    });
  }

  async release(owner: IdempotencyOwner, key: string, reservedAt: Date): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({ where: { ...owner, key, createdAt: reservedAt, statusCode: null } });
  }

  /** Deletes up to `limit` expired markers (answers past 24 h, reservations past their lease); returns how many. */
  async purgeExpired(now: Date, limit: number): Promise<number> {
    return this.db.count(PURGE_EXPIRED, [utc(now), limit]);
  }
}
