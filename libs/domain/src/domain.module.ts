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
import { GetTool } from './tools/get-tool.use-case.js';
import { ListTools } from './tools/list-tools.use-case.js';
import { UpdateTool } from './tools/update-tool.use-case.js';
import { AttemptRecorder } from './calls/attempt-recorder.js';
import { DeliverAttempt } from './calls/deliver-attempt.use-case.js';
import { DeliverQueuedAttempt } from './calls/deliver-queued-attempt.use-case.js';
import { FinishedCalls } from './calls/finished-calls.js';
import { FirstAttempts } from './calls/first-attempts.js';
import { ToolCallBodies } from './calls/tool-call-body.js';
import { AgentToolsets } from './agents/agent-toolsets.js';
import { AppMcpSessions } from './mcp/app-mcp-sessions.js';
import { CallMcpTool } from './mcp/call-mcp-tool.use-case.js';
import { McpArgumentChecks } from './mcp/mcp-argument-checks.js';
import { McpListChangedRefresh } from './mcp/mcp-list-changed.js';
import { OffLoopSchemaChecks } from './mcp/off-loop-schema-checks.js';
import { ListAppMcpTools } from './mcp/list-app-mcp-tools.use-case.js';
import { McpTargets } from './mcp/mcp-targets.js';
import { RefreshAppMcpTools } from './mcp/refresh-app-mcp-tools.use-case.js';
import { RefreshMcpSnapshot } from './mcp/refresh-mcp-snapshot.use-case.js';
import { RefreshStaleMcpSnapshots } from './mcp/refresh-stale-mcp-snapshots.use-case.js';
import { RunAgentMcpCall } from './mcp/run-agent-mcp-call.use-case.js';
import { IdempotentRequests } from './calls/idempotency.js';
import { AcceptToolCall } from './calls/accept-tool-call.use-case.js';
import { AgentWaits } from './calls/agent-waits.js';
import { AwaitToolCall } from './calls/await-tool-call.use-case.js';
import { CancelToolCall } from './calls/cancel-tool-call.use-case.js';
import { GetAgentToolCall } from './calls/get-agent-tool-call.use-case.js';
import { GetAppToolCall } from './calls/get-app-tool-call.use-case.js';
import { ListAgentTools } from './calls/list-agent-tools.use-case.js';
import { ListAppToolCalls } from './calls/list-app-tool-calls.use-case.js';
import { ListProjectToolCalls } from './calls/list-project-tool-calls.use-case.js';
import { GetProjectToolCall } from './calls/get-project-tool-call.use-case.js';
import { ReconcileToolCalls } from './calls/reconcile-tool-calls.use-case.js';
import { ReplayToolCall } from './calls/replay-tool-call.use-case.js';
import { TestToolCall } from './calls/test-tool-call.use-case.js';
import { CreateToolInstance } from './instances/create-tool-instance.use-case.js';
import { DeleteToolInstance } from './instances/delete-tool-instance.use-case.js';
import { ListToolInstances } from './instances/list-tool-instances.use-case.js';
import { UpdateToolInstance } from './instances/update-tool-instance.use-case.js';
import { CreateConfiguratorLaunch } from './projects/create-configurator-launch.use-case.js';
import { ExchangeLaunchCode } from './projects/exchange-launch-code.use-case.js';
import { ApproveInstallationChanges } from './approvals/approve-installation-changes.use-case.js';
import { InstallationToolChanges } from './approvals/installation-tool-changes.js';
import { OlderDefinitionCounts } from './approvals/older-definition-counts.js';
import { ListInstallationChanges } from './approvals/list-installation-changes.use-case.js';
import { SetApproveChanges } from './approvals/set-approve-changes.use-case.js';
import { FindInstallation } from './projects/find-installation.use-case.js';
import { InstallApp } from './projects/install-app.use-case.js';
import { ListInstallableTools } from './projects/list-installable-tools.use-case.js';
import { ListInstallations } from './projects/list-installations.use-case.js';
import { UninstallApp } from './projects/uninstall-app.use-case.js';
import { DeleteEventEndpoint } from './events/delete-event-endpoint.use-case.js';
import { DeliverCallEvent } from './events/deliver-call-event.use-case.js';
import { GetEventEndpoint } from './events/get-event-endpoint.use-case.js';
import { PutEventEndpoint } from './events/put-event-endpoint.use-case.js';
import { ReconcileCallEvents } from './events/reconcile-call-events.use-case.js';
import { RotateEventEndpointSecret } from './events/rotate-event-endpoint-secret.use-case.js';
import { PurgeExpiredRecords } from './maintenance/purge-expired-records.use-case.js';

const useCases = [
  CreateApp,
  DeleteApp,
  FindOwnedApp,
  ListApps,
  PutAgentToolsSettings,
  RotateWebhookSecret,
  UpdateApp,
  CreateTool,
  DeleteTool,
  GetTool,
  ListTools,
  UpdateTool,
  ReencryptSecrets,
  FindInstallation,
  InstallApp,
  InstallationToolChanges,
  ListInstallationChanges,
  ApproveInstallationChanges,
  SetApproveChanges,
  OlderDefinitionCounts,
  ListInstallableTools,
  ListInstallations,
  UninstallApp,
  CreateToolInstance,
  DeleteToolInstance,
  ListToolInstances,
  UpdateToolInstance,
  CreateConfiguratorLaunch,
  ExchangeLaunchCode,
  ToolCallBodies,
  FinishedCalls,
  AttemptRecorder,
  DeliverAttempt,
  FirstAttempts,
  DeliverQueuedAttempt,
  IdempotentRequests,
  AcceptToolCall,
  AgentWaits,
  AwaitToolCall,
  CancelToolCall,
  GetAgentToolCall,
  GetAppToolCall,
  ListAgentTools,
  ListAppToolCalls,
  ListProjectToolCalls,
  GetProjectToolCall,
  ReconcileToolCalls,
  ReplayToolCall,
  TestToolCall,
  PurgeExpiredRecords,
  PutEventEndpoint,
  GetEventEndpoint,
  RotateEventEndpointSecret,
  DeleteEventEndpoint,
  DeliverCallEvent,
  ReconcileCallEvents,
  AgentToolsets,
  AppMcpSessions,
  CallMcpTool,
  McpArgumentChecks,
  OffLoopSchemaChecks,
  McpListChangedRefresh,
  ListAppMcpTools,
  McpTargets,
  RefreshAppMcpTools,
  RefreshMcpSnapshot,
  RefreshStaleMcpSnapshots,
  RunAgentMcpCall,
];

/** The use cases; repositories and the secret box come from the global persistence and secrets modules. */
@Module({ providers: useCases, exports: useCases })
export class DomainModule {}
