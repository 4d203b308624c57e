import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DatabaseHealthRepository } from '../../../../libs/persistence/src/index.js';
import { REDIS_PROBE, type RedisConnection } from '../../../../libs/redis/src/index.js';
import { Answers, Operation, jsonSchemaOf } from '../common/openapi.js';
import { problem } from '../common/problem-details.filter.js';
import { LiveResponseSchema, NotReadyResponseSchema, ReadyResponseSchema } from './health.schemas.js';

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
  ]);
}

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly database: DatabaseHealthRepository,
    @Inject(REDIS_PROBE) private readonly redis: RedisConnection,
  ) {}

  @Get('live')
  @Operation('live', 'Is the process up')
  @Answers(200, LiveResponseSchema, 'Up')
  live() {
    return { status: 'ok' };
  }

  /** 200 when Postgres and Redis answer; 503 naming what is down otherwise. */
  @Get('ready')
  @Operation('ready', 'Can it serve: Postgres and Redis answer')
  @Answers(200, ReadyResponseSchema, 'Ready')
  @ApiResponse({
    status: 503,
    description: 'Not ready: `checks` names what is down',
    content: { 'application/problem+json': { schema: jsonSchemaOf(NotReadyResponseSchema, 'output') } },
  })
  async ready(@Res() response: FastifyReply): Promise<void> {
    const [postgres, redis] = await Promise.all([
      withTimeout(this.database.ping()).then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      withTimeout(this.redis.ping()).then(
        () => 'up' as const,
        () => 'down' as const,
      ),
    ]);
    const checks = { postgres, redis };
    if (postgres === 'up' && redis === 'up') {
      void response.code(200).send({ status: 'ready', checks });
      return;
    }
    const down = Object.entries(checks)
      .filter(([, state]) => state === 'down')
      .map(([name]) => name);
    void response
      .code(503)
      .type('application/problem+json; charset=utf-8')
      .send(
        JSON.stringify({ ...problem(503, 'unavailable', `Not ready: ${down.join(' and ')} not reachable.`), checks }),
      );
  }
}
