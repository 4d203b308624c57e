import { Module } from '@nestjs/common';
import { CreateApp } from './apps/create-app.use-case.js';
import { DeleteApp } from './apps/delete-app.use-case.js';
import { FindOwnedApp } from './apps/find-owned-app.js';
import { ListApps } from './apps/list-apps.use-case.js';
import { PutAgentToolsSettings } from './apps/put-agent-tools-settings.use-case.js';
import { RotateWebhookSecret } from './apps/rotate-webhook-secret.use-case.js';
import { UpdateApp } from './apps/update-app.use-case.js';
import { ReencryptSecrets } from './secrets/reencrypt-secrets.use-case.js';
import { CreateTool } from './tools/create-tool.use-case.js';
import { DeleteTool } from './tools/delete-tool.use-case.js';
import { GetTool, ListTools } from './tools/read-tools.use-case.js';
import { UpdateTool } from './tools/update-tool.use-case.js';
import { DeliverAttempt } from './calls/deliver-attempt.use-case.js';
import { AgentToolsets } from './agents/agent-toolsets.js';
import { CallMcpTool } from './mcp/call-mcp-tool.use-case.js';
import { McpListChangedRefresh } from './mcp/mcp-list-changed.js';
import { ListAppMcpTools, McpTargets, RefreshAppMcpTools, RefreshMcpSnapshot } from './mcp/mcp-snapshot.use-cases.js';
import { IdempotentRequests } from './calls/idempotency.js';
import {
  AcceptToolCall, AwaitToolCall, CancelToolCall, GetAgentToolCall, GetAppToolCall, ListAgentTools, ListAppToolCalls, ReconcileToolCalls, ReplayToolCall,
} from './calls/tool-calls.use-cases.js';
import { CreateToolInstance, DeleteToolInstance, ListToolInstances, UpdateToolInstance } from './instances/tool-instances.use-cases.js';
import { CreateConfiguratorLaunch, ExchangeLaunchCode } from './projects/configurator-launch.use-cases.js';
import { FindInstallation, InstallApp, ListInstallableTools, ListInstallations, UninstallApp } from './projects/installations.use-cases.js';

const useCases = [
  CreateApp, DeleteApp, FindOwnedApp, ListApps, PutAgentToolsSettings, RotateWebhookSecret, UpdateApp,
  CreateTool, DeleteTool, GetTool, ListTools, UpdateTool, ReencryptSecrets,
  FindInstallation, InstallApp, ListInstallableTools, ListInstallations, UninstallApp,
  CreateToolInstance, DeleteToolInstance, ListToolInstances, UpdateToolInstance,
  CreateConfiguratorLaunch, ExchangeLaunchCode,
  DeliverAttempt, IdempotentRequests, AcceptToolCall, AwaitToolCall, CancelToolCall, GetAgentToolCall, GetAppToolCall, ListAgentTools, ListAppToolCalls,
  ReconcileToolCalls, ReplayToolCall,
  AgentToolsets, CallMcpTool, McpListChangedRefresh, ListAppMcpTools, McpTargets, RefreshAppMcpTools, RefreshMcpSnapshot,
];

/** The use cases; repositories and the secret box come from the global persistence and secrets modules. */
@Module({ providers: useCases, exports: useCases })
export class DomainModule {}
