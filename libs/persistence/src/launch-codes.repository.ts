import { Injectable } from '@nestjs/common';
import type { LaunchCode, Prisma } from './generated/client.js';
import { DatabasePool, utc } from './database-pool.js';
import { PrismaService } from './prisma.service.js';

export type NewLaunchCode = Omit<Prisma.LaunchCodeUncheckedCreateInput, 'projectId' | 'agentId'>;

/** Up to $2 codes past their expiry at $1. */
const PURGE_EXPIRED = {
  name: 'launch_codes_purge',
  text: `DELETE FROM launch_codes WHERE ctid IN (
    SELECT ctid FROM launch_codes WHERE expires_at <= $1::timestamp(3) LIMIT $2::int
  )`,
};

/** Configurator launch codes: made by a project for one of its agents, spent by the app's developer. */
@Injectable()
export class LaunchCodesRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DatabasePool,
  ) {}

  async create(projectId: string, agentId: string, launch: NewLaunchCode): Promise<LaunchCode> {
    return this.prisma.launchCode.create({ data: { ...launch, projectId, agentId } });
  }

  /**
   * Marks the code used and returns it, only if it is for an app of this developer, unused and
   * unexpired: a code works once, and only for its own app.
   */
  async consume(developerId: string, appId: string, codeHash: string, now: Date): Promise<LaunchCode | null> {
    const { count } = await this.prisma.launchCode.updateMany({
      where: { codeHash, appId, app: { developerId }, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    return count === 0 ? null : this.prisma.launchCode.findUnique({ where: { codeHash } });
  }

  /** Deletes up to `limit` codes past their expiry (used or not): they can never be exchanged again; returns how many. */
  async purgeExpired(now: Date, limit: number): Promise<number> {
    return this.db.count(PURGE_EXPIRED, [utc(now), limit]);
  }
}
