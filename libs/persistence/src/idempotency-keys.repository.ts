import { Injectable } from '@nestjs/common';
import type { IdempotencyKey, Prisma } from './generated/client.js';
import { PrismaService } from './prisma.service.js';

/** `Idempotency-Key` markers of agent calls: set if absent, then the stored first response. */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Reserves the key; when it is already taken (and not expired), returns the existing marker. */
  async reserve(agentId: string, key: string, requestHash: string, now: Date, ttlMs: number): Promise<IdempotencyKey | null> {
    await this.prisma.idempotencyKey.deleteMany({ where: { agentId, key, expiresAt: { lte: now } } });
    const inserted = await this.prisma.$executeRaw`
      INSERT INTO idempotency_keys (agent_id, key, request_hash, created_at, expires_at)
      VALUES (${agentId}, ${key}, ${requestHash}, ${now}, ${new Date(now.getTime() + ttlMs)})
      ON CONFLICT DO NOTHING`;
    if (inserted === 1) return null;
    return this.prisma.idempotencyKey.findUnique({ where: { agentId_key: { agentId, key } } });
  }

  async complete(agentId: string, key: string, statusCode: number, response: Prisma.InputJsonValue): Promise<void> {
    await this.prisma.idempotencyKey.update({ where: { agentId_key: { agentId, key } }, data: { statusCode, response } });
  }

  async release(agentId: string, key: string): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({ where: { agentId, key, statusCode: null } });
  }
}
