import { Global, Module } from '@nestjs/common';
import { ENV, type Env } from '../../config/src/index.js';
import { AppsRepository } from './apps.repository.js';
import { ApprovedToolDefinitionsRepository } from './approved-tool-definitions.repository.js';
import { CallEventLedger } from './call-event-ledger.js';
import { EventEndpointsRepository } from './event-endpoints.repository.js';
import { ProjectLimitsRepository } from './project-limits.repository.js';
import { DatabaseHealthRepository } from './database-health.repository.js';
import { EncryptedColumnsRepository } from './encrypted-columns.repository.js';
import { FinishedToolCallsRepository } from './finished-tool-calls.repository.js';
import { HttpToolsRepository } from './http-tools.repository.js';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';
import { InstallationsRepository } from './installations.repository.js';
import { LaunchCodesRepository } from './launch-codes.repository.js';
import { McpToolsRepository } from './mcp-tools.repository.js';
import { DatabasePool } from './database-pool.js';
import { PrismaService } from './prisma.service.js';
import { ToolCallLedger } from './tool-call-ledger.js';
import { ToolInstancesRepository } from './tool-instances.repository.js';

const repositories = [
  AppsRepository,
  ApprovedToolDefinitionsRepository,
  DatabaseHealthRepository,
  EncryptedColumnsRepository,
  HttpToolsRepository,
  InstallationsRepository,
  LaunchCodesRepository,
  McpToolsRepository,
  ToolCallLedger,
  ToolInstancesRepository,
  IdempotencyKeysRepository,
  FinishedToolCallsRepository,
  EventEndpointsRepository,
  ProjectLimitsRepository,
  CallEventLedger,
];

@Global()
@Module({
  providers: [
    {
      provide: DatabasePool,
      inject: [ENV],
      useFactory: (env: Env) => {
        if (!env.DATABASE_URL) throw new Error('DATABASE_URL is not set: npm start sets it for the embedded Postgres');
        return new DatabasePool(env.DATABASE_URL);
      },
    },
    { provide: PrismaService, inject: [DatabasePool], useFactory: (pool: DatabasePool) => new PrismaService(pool) },
    ...repositories,
  ],
  exports: [DatabasePool, PrismaService, ...repositories],
})
export class PersistenceModule {}
