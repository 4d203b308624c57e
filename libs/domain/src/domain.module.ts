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
import { AttemptRecorder } from './calls/delivering/attempt-recorder.js';
import { FinishedCalls } from './calls/delivering/finished-calls.js';
import { FirstAttempts } from './calls/accepting/first-attempts.js';
import { ToolCallBodies } from './calls/accepting/tool-call-request.js';
import { ToolCallDelivery } from './calls/delivering/tool-call-delivery.js';
import { AttemptLog } from './delivery/attempt-log.js';
import { DeliveryEngine } from './delivery/delivery-engine.js';
import { DeliveryLimits } from './delivery/delivery-limits.js';
import { GetDeliveryLimits } from './apps/get-delivery-limits.use-case.js';
import { CallQuotas } from './projects/call-quotas.js';
import { GetProjectLimits, PutProjectLimits } from './projects/project-limits.use-case.js';
import { DELIVERY_KINDS, type DeliveryKinds } from './delivery/delivery-kinds.js';
import { ReconcileDeliveries } from './delivery/reconcile-deliveries.use-case.js';
import { SignedSender } from './delivery/signed-sender.js';
import { CallFinishedDelivery } from './events/call-finished-delivery.js';
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
import { IdempotentRequests } from './calls/accepting/idempotency.js';
import { AcceptToolCall } from './calls/accepting/accept-tool-call.use-case.js';
import { AgentWaits } from './calls/reading/agent-waits.js';
import { AwaitToolCall } from './calls/reading/await-tool-call.use-case.js';
import { CancelToolCall } from './calls/delivering/cancel-tool-call.use-case.js';
import { GetAgentToolCall } from './calls/reading/get-agent-tool-call.use-case.js';
import { GetAppToolCall } from './calls/reading/get-app-tool-call.use-case.js';
import { ListAgentTools } from './calls/reading/list-agent-tools.use-case.js';
import { ListAppToolCalls } from './calls/reading/list-app-tool-calls.use-case.js';
import { ListProjectToolCalls } from './calls/reading/list-project-tool-calls.use-case.js';
import { GetProjectToolCall } from './calls/reading/get-project-tool-call.use-case.js';
import { ReplayToolCall } from './calls/delivering/replay-tool-call.use-case.js';
import { TestToolCall } from './calls/accepting/test-tool-call.use-case.js';
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
import { GetEventEndpoint } from './events/get-event-endpoint.use-case.js';
import { PutEventEndpoint } from './events/put-event-endpoint.use-case.js';
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
  AttemptLog,
  SignedSender,
  ToolCallDelivery,
  CallFinishedDelivery,
  DeliveryEngine,
  DeliveryLimits,
  GetDeliveryLimits,
  CallQuotas,
  GetProjectLimits,
  PutProjectLimits,
  ReconcileDeliveries,
  FirstAttempts,
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
  ReplayToolCall,
  TestToolCall,
  PurgeExpiredRecords,
  PutEventEndpoint,
  GetEventEndpoint,
  RotateEventEndpointSecret,
  DeleteEventEndpoint,
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

/** Every kind of delivery the engine sends, by name: one description each (DeliveryKind). */
const deliveryKinds = {
  provide: DELIVERY_KINDS,
  inject: [ToolCallDelivery, CallFinishedDelivery],
  useFactory: (toolCall: ToolCallDelivery, callFinished: CallFinishedDelivery): DeliveryKinds => ({
    tool_call: toolCall,
    'tool_call.finished': callFinished,
  }),
};

/** The use cases; repositories and the secret box come from the global persistence and secrets modules. */
@Module({ providers: [...useCases, deliveryKinds], exports: [...useCases, deliveryKinds] })
export class DomainModule {}
