import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ConfigModule, type Env } from '../../../libs/config/src/index.js';
import { BroadcastModule } from '../../../libs/broadcast/src/index.js';
import { DomainModule } from '../../../libs/domain/src/index.js';
import { McpModule } from '../../../libs/mcp/src/index.js';
import { ObservabilityModule } from '../../../libs/observability/src/index.js';
import { OutboundHttpModule } from '../../../libs/outbound-http/src/index.js';
import { PersistenceModule } from '../../../libs/persistence/src/index.js';
import { QueueModule } from '../../../libs/queue/src/index.js';
import { RedisModule } from '../../../libs/redis/src/index.js';
import { SecretsModule } from '../../../libs/secrets/src/index.js';
import { AppsController } from './developers/apps/apps.controller.js';
import { McpToolsController } from './developers/mcp/mcp-tools.controller.js';
import { ToolCallsController } from './developers/tool-calls/tool-calls.controller.js';
import { TestCallsController } from './developers/test-calls/test-calls.controller.js';
import { ToolsController } from './developers/tools/tools.controller.js';
import { AgentsController } from './agents/agents.controller.js';
import { AuthGuard } from './common/auth.guard.js';
import { ProblemDetailsFilter } from './common/problem-details.filter.js';
import { StorableInputPipe } from './common/storable-input.pipe.js';
import { IdempotentAnswers } from './common/idempotent-answers.js';
import { TokenVerifier } from './common/token-verifier.js';
import { HealthController } from './health/health.controller.js';
import { MetricsController, QueueMetrics } from './health/metrics.controller.js';
import { AgentMcpController } from './mcp/agent-mcp.controller.js';
import { AgentMcpServers } from './mcp/agent-mcp-servers.js';
import { AgentMcpTasks } from './mcp/agent-mcp-tasks.js';
import { ProjectsController } from './projects/projects.controller.js';
import { EventEndpointController } from './projects/event-endpoint/event-endpoint.controller.js';
import { ProjectLimitsController } from './projects/limits/project-limits.controller.js';
import { ProjectToolCallsController } from './projects/tool-calls/project-tool-calls.controller.js';

@Module({})
export class ApiModule {
  static forRoot(env: Env): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(env),
        ObservabilityModule,
        PersistenceModule,
        SecretsModule,
        RedisModule,
        QueueModule,
        BroadcastModule,
        OutboundHttpModule,
        McpModule,
        DomainModule,
      ],
      controllers: [
        HealthController,
        MetricsController,
        AppsController,
        ToolsController,
        ToolCallsController,
        TestCallsController,
        McpToolsController,
        ProjectsController,
        ProjectToolCallsController,
        EventEndpointController,
        ProjectLimitsController,
        AgentsController,
        AgentMcpController,
      ],
      providers: [
        TokenVerifier,
        IdempotentAnswers,
        AgentMcpServers,
        AgentMcpTasks,
        QueueMetrics,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        { provide: APP_PIPE, useClass: StorableInputPipe },
      ],
    };
  }
}
