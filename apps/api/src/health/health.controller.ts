import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { PrismaService } from '../../../../libs/persistence/src/index.js';
import { REDIS_PROBE } from '../../../../libs/queue/src/index.js';
import { problem } from '../common/problem-details.filter.js';

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref())]);
}

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(REDIS_PROBE) private readonly redis: Redis,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /** 200 when Postgres and Redis answer; 503 naming what is down otherwise. */
  @Get('ready')
  async ready(@Res() response: FastifyReply): Promise<void> {
    const [postgres, redis] = await Promise.all([
      withTimeout(this.prisma.$queryRaw`SELECT 1`).then(() => 'up' as const, () => 'down' as const),
      withTimeout(this.redis.ping()).then(() => 'up' as const, () => 'down' as const),
    ]);
    const checks = { postgres, redis };
    if (postgres === 'up' && redis === 'up') {
      void response.code(200).send({ status: 'ready', checks });
      return;
    }
    const down = Object.entries(checks).filter(([, state]) => state === 'down').map(([name]) => name);
    void response
      .code(503)
      .type('application/problem+json; charset=utf-8')
      .send(JSON.stringify({ ...problem(503, 'unavailable', `Not ready: ${down.join(' and ')} not reachable.`), checks }));
  }
}
