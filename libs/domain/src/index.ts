export * from './apps/agent-tools-settings.js';
export * from './apps/app.js';
export * from './apps/create-app.use-case.js';
export * from './apps/delete-app.use-case.js';
export * from './apps/find-owned-app.js';
export * from './apps/list-apps.use-case.js';
export * from './apps/put-agent-tools-settings.use-case.js';
export * from './apps/rotate-webhook-secret.use-case.js';
export * from './apps/update-app.use-case.js';
export * from './apps/webhook-secrets.js';
export * from './errors.js';
export * from './ids.js';
export * from './naming.js';
export * from './secrets/reencrypt-secrets.use-case.js';
export * from './tools/create-tool.use-case.js';
export * from './tools/delete-tool.use-case.js';
export * from './tools/http-tool-record.js';
export * from './tools/http-tool.js';
export * from './tools/get-tool.use-case.js';
export * from './tools/list-tools.use-case.js';
export * from './tools/update-tool.use-case.js';
export * from './urls.js';
export * from './domain.module.js';
export * from './delivery/retry-schedule.js';
export * from './calls/accepting/tool-arguments.js';
export * from './instances/tool-instance.js';
export * from './instances/create-tool-instance.use-case.js';
export * from './instances/delete-tool-instance.use-case.js';
export * from './instances/list-tool-instances.use-case.js';
export * from './instances/update-tool-instance.use-case.js';
export * from './projects/create-configurator-launch.use-case.js';
export * from './projects/exchange-launch-code.use-case.js';
export * from './approvals/approve-installation-changes.use-case.js';
export * from './approvals/installation-tool-changes.js';
export * from './approvals/list-installation-changes.use-case.js';
export * from './approvals/older-definition-counts.js';
export * from './approvals/set-approve-changes.use-case.js';
export * from './approvals/tool-definition.js';
export * from './projects/find-installation.use-case.js';
export * from './projects/install-app.use-case.js';
export * from './projects/language.js';
export * from './projects/list-installable-tools.use-case.js';
export * from './projects/list-installations.use-case.js';
export * from './projects/uninstall-app.use-case.js';
export * from './agents/agent-ref.js';
export * from './agents/agent-tool.js';
export * from './calls/delivering/attempt-recorder.js';
export * from './calls/delivering/call-transitions.js';
export * from './delivery/delivery-gate.js';
export * from './delivery/delivery-limits.js';
export * from './apps/get-delivery-limits.use-case.js';
export * from './projects/call-quotas.js';
export * from './projects/project-limits.use-case.js';
export * from './calls/delivering/finished-calls.js';
export * from './calls/accepting/first-attempts.js';
export * from './calls/accepting/idempotency.js';
export * from './calls/accepting/tool-call-request.js';
export * from './calls/delivering/handler-answer.js';
export * from './calls/delivering/tool-call-delivery.js';
export * from './delivery/attempt-log.js';
export * from './delivery/delivery-engine.js';
export * from './delivery/delivery-kind.js';
export * from './delivery/delivery-kinds.js';
export * from './delivery/reconcile-deliveries.use-case.js';
export * from './delivery/signed-sender.js';
export * from './calls/accepting/accept-tool-call.use-case.js';
export * from './calls/reading/agent-waits.js';
export * from './calls/reading/await-tool-call.use-case.js';
// The call states' unions and predicates live beside the repository that reads and writes them.
export {
  ACTIVE_STATUSES,
  ATTEMPT_OUTCOMES,
  CALL_STATUSES,
  EXECUTION_MODES,
  RETRY_WINDOWS,
  TERMINAL_STATUSES,
  TOOL_KINDS,
  isActive,
  isTerminal,
  type ActiveStatus,
  type AttemptOutcome,
  type CallStatus,
  type ExecutionMode,
  type RetryWindow,
  type TerminalStatus,
  type ToolKind,
} from '../../persistence/src/call-states.js';
export * from './calls/delivering/cancel-tool-call.use-case.js';
export * from './calls/reading/get-agent-tool-call.use-case.js';
export * from './calls/reading/get-app-tool-call.use-case.js';
export * from './calls/reading/list-agent-tools.use-case.js';
export * from './calls/reading/list-app-tool-calls.use-case.js';
export * from './calls/reading/list-project-tool-calls.use-case.js';
export * from './calls/reading/get-project-tool-call.use-case.js';
export * from './calls/delivering/replay-tool-call.use-case.js';
export * from './calls/accepting/test-tool-call.use-case.js';
export * from './mcp/result-text.js';
export * from './mcp/mcp-dialog.js';
export * from './mcp/mcp-snapshot.js';
export * from './agents/agent-toolsets.js';
export * from './mcp/app-mcp-sessions.js';
export * from './mcp/call-mcp-tool.use-case.js';
export * from './mcp/list-app-mcp-tools.use-case.js';
export * from './mcp/mcp-error.js';
export * from './mcp/mcp-targets.js';
export * from './mcp/refresh-app-mcp-tools.use-case.js';
export * from './mcp/refresh-mcp-snapshot.use-case.js';
export * from './mcp/refresh-stale-mcp-snapshots.use-case.js';
export * from './mcp/run-agent-mcp-call.use-case.js';
export * from './mcp/mcp-list-changed.js';
export * from './mcp/off-loop-schema-checks.js';
export * from './maintenance/purge-expired-records.use-case.js';
export * from './storable-json.js';
export * from './events/call-event-body.js';
export * from './events/delete-event-endpoint.use-case.js';
export * from './events/call-finished-delivery.js';
export * from './events/get-event-endpoint.use-case.js';
export * from './events/put-event-endpoint.use-case.js';
export * from './events/rotate-event-endpoint-secret.use-case.js';
