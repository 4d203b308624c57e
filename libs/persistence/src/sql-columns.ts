import type { ToolCall } from './call-states.js';
import type { App, CallEvent, HttpTool, Installation, ToolInstance } from './generated/client.js';

/** An instance with its installation, the installation's app, and its HTTP tool (null for an MCP tool). */
export type InstanceWithTool = ToolInstance & { installation: Installation & { app: App }; httpTool: HttpTool | null };

/** What a call's next attempt checks and needs of its app: the switches and the signing secrets. */
const TARGET_APP_FIELDS = [
  'id',
  'agentToolsEnabled',
  'agentToolsMode',
  'webhookSecretEnc',
  'retiredWebhookSecrets',
] as const satisfies readonly (keyof App)[];
export type TargetApp = Pick<App, (typeof TARGET_APP_FIELDS)[number]>;

/** What a call's next attempt checks and needs of its tool instance: on or off, and what a body is built from. */
const TARGET_INSTANCE_FIELDS = [
  'id',
  'enabled',
  'privateDataRequired',
  'privateDataEnc',
  'configuration',
] as const satisfies readonly (keyof ToolInstance)[];
export type TargetInstance = Pick<ToolInstance, (typeof TARGET_INSTANCE_FIELDS)[number]>;

/** A table's columns by the field name Prisma gives them: the mapping between a row and a Prisma-shaped object. */
type Columns<T> = { readonly [K in keyof T]-?: string };

export const TOOL_CALL_COLUMNS: Columns<ToolCall> = {
  id: 'id',
  eventId: 'event_id',
  appId: 'app_id',
  installationId: 'installation_id',
  projectId: 'project_id',
  agentId: 'agent_id',
  toolInstanceId: 'tool_instance_id',
  toolKind: 'tool_kind',
  toolName: 'tool_name',
  agentToolName: 'agent_tool_name',
  dialogId: 'dialog_id',
  leadId: 'lead_id',
  executionMode: 'execution_mode',
  retryWindow: 'retry_window',
  attemptTimeoutS: 'attempt_timeout_s',
  handlerUrl: 'handler_url',
  arguments: 'arguments',
  bodyEnc: 'body_enc',
  status: 'status',
  round: 'round',
  nextAttemptN: 'next_attempt_n',
  nextAttemptAt: 'next_attempt_at',
  firstAttemptAt: 'first_attempt_at',
  attemptDeadline: 'attempt_deadline',
  result: 'result',
  resultText: 'result_text',
  error: 'error',
  acceptedAt: 'accepted_at',
  finishedAt: 'finished_at',
  updatedAt: 'updated_at',
  test: 'test',
};

export const CALL_EVENT_COLUMNS: Columns<CallEvent> = {
  id: 'id',
  callId: 'call_id',
  round: 'round',
  projectId: 'project_id',
  payload: 'payload',
  status: 'status',
  nextAttemptN: 'next_attempt_n',
  nextAttemptAt: 'next_attempt_at',
  firstAttemptAt: 'first_attempt_at',
  attemptDeadline: 'attempt_deadline',
  error: 'error',
  createdAt: 'created_at',
  finishedAt: 'finished_at',
  updatedAt: 'updated_at',
};

export const APP_COLUMNS: Columns<App> = {
  id: 'id',
  developerId: 'developer_id',
  name: 'name',
  displayName: 'display_name',
  embeddedPageUrl: 'embedded_page_url',
  developerPageUrl: 'developer_page_url',
  webhookSecretEnc: 'webhook_secret_enc',
  retiredWebhookSecrets: 'retired_webhook_secrets',
  agentToolsEnabled: 'agent_tools_enabled',
  agentToolsMode: 'agent_tools_mode',
  mcpUrl: 'mcp_url',
  mcpAuthHeaderName: 'mcp_auth_header_name',
  mcpAuthHeaderValueEnc: 'mcp_auth_header_value_enc',
  mcpSnapshotRefreshedAt: 'mcp_snapshot_refreshed_at',
  mcpSnapshotAttemptedAt: 'mcp_snapshot_attempted_at',
  mcpSnapshotError: 'mcp_snapshot_error',
  mcpSnapshotFailures: 'mcp_snapshot_failures',
  mcpSnapshotRetryAt: 'mcp_snapshot_retry_at',
  mcpCallTimeoutS: 'mcp_call_timeout_s',
  deliveryMaxInFlight: 'delivery_max_in_flight',
  deliveryMaxPerSecond: 'delivery_max_per_second',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

export const TARGET_APP_COLUMNS = someColumns(APP_COLUMNS, TARGET_APP_FIELDS);

export const INSTALLATION_COLUMNS: Columns<Installation> = {
  id: 'id',
  projectId: 'project_id',
  appId: 'app_id',
  approveChanges: 'approve_changes',
  createdAt: 'created_at',
};

export const TOOL_INSTANCE_COLUMNS: Columns<ToolInstance> = {
  id: 'id',
  projectId: 'project_id',
  agentId: 'agent_id',
  installationId: 'installation_id',
  appId: 'app_id',
  toolKind: 'tool_kind',
  toolName: 'tool_name',
  httpToolId: 'http_tool_id',
  title: 'title',
  configuration: 'configuration',
  configuredParameters: 'configured_parameters',
  privateDataEnc: 'private_data_enc',
  privateDataRequired: 'private_data_required',
  configurationProblem: 'configuration_problem',
  enabled: 'enabled',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

export const TARGET_INSTANCE_COLUMNS = someColumns(TOOL_INSTANCE_COLUMNS, TARGET_INSTANCE_FIELDS);

export const HTTP_TOOL_COLUMNS: Columns<HttpTool> = {
  id: 'id',
  appId: 'app_id',
  name: 'name',
  titleRu: 'title_ru',
  titleEn: 'title_en',
  descriptionRu: 'description_ru',
  descriptionEn: 'description_en',
  responseDescriptionRu: 'response_description_ru',
  responseDescriptionEn: 'response_description_en',
  agentDescription: 'agent_description',
  handlerUrl: 'handler_url',
  parameters: 'parameters',
  configurable: 'configurable',
  allowMultiple: 'allow_multiple',
  executionMode: 'execution_mode',
  attemptTimeoutS: 'attempt_timeout_s',
  retryWindow: 'retry_window',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** What the reconciler needs of an overdue call: its job, and whether it may run again (instant may not). */
const OVERDUE_CALL_FIELDS = [
  'id',
  'appId',
  'round',
  'status',
  'executionMode',
  'nextAttemptN',
] as const satisfies readonly (keyof ToolCall)[];
export type OverdueCall = Pick<ToolCall, (typeof OVERDUE_CALL_FIELDS)[number]>;
export const OVERDUE_CALL_COLUMNS = someColumns(TOOL_CALL_COLUMNS, OVERDUE_CALL_FIELDS);

/** What an event's attempt needs of it: who it is for, what it says, and where its schedule stands. */
const CLAIMED_EVENT_FIELDS = [
  'id',
  'callId',
  'projectId',
  'payload',
  'nextAttemptN',
  'firstAttemptAt',
] as const satisfies readonly (keyof CallEvent)[];
export type ClaimedEventRow = Pick<CallEvent, (typeof CLAIMED_EVENT_FIELDS)[number]>;
export const CLAIMED_EVENT_COLUMNS = someColumns(CALL_EVENT_COLUMNS, CLAIMED_EVENT_FIELDS);

/** What the reconciler needs of an overdue event: its job. */
const OVERDUE_EVENT_FIELDS = ['id', 'projectId', 'nextAttemptN'] as const satisfies readonly (keyof CallEvent)[];
export type OverdueEventRow = Pick<CallEvent, (typeof OVERDUE_EVENT_FIELDS)[number]>;
export const OVERDUE_EVENT_COLUMNS = someColumns(CALL_EVENT_COLUMNS, OVERDUE_EVENT_FIELDS);

/** Some of a table's columns, for a narrower read. */
function someColumns<T, K extends keyof T>(columns: Columns<T>, fields: readonly K[]): Columns<Pick<T, K>> {
  return Object.fromEntries(fields.map((field) => [field, columns[field]])) as Columns<Pick<T, K>>;
}

/**
 * A SELECT (or RETURNING) list naming each column by its field: `alias.event_id AS "eventId"`. With
 * a prefix (`"app.eventId"`), several tables' columns share one row, and `pick` takes them apart.
 */
export function selectList<T>(columns: Columns<T>, alias?: string, prefix = ''): string {
  const table = alias ? `${alias}.` : '';
  return Object.entries<string>(columns)
    .map(([field, column]) => `${table}${column} AS "${prefix}${field}"`)
    .join(', ');
}

/** The object of one table's columns in a row selected with `selectList(columns, alias, prefix)`. */
export function pick<T>(row: Record<string, unknown>, columns: Columns<T>, prefix: string): T {
  const picked: Record<string, unknown> = {};
  for (const field of Object.keys(columns)) picked[field] = row[`${prefix}${field}`];
  return picked as T;
}

/**
 * The columns of an instance (alias `i`) with its installation (`n`), that one's app (`na`) and its
 * HTTP tool (`h`), for a query that joins them; `instanceWithTool` reads them back.
 */
export const INSTANCE_WITH_TOOL_SELECT = [
  selectList(TOOL_INSTANCE_COLUMNS, 'i', 'i.'),
  selectList(INSTALLATION_COLUMNS, 'n', 'n.'),
  selectList(APP_COLUMNS, 'na', 'na.'),
  selectList(HTTP_TOOL_COLUMNS, 'h', 'h.'),
].join(', ');

/** The instance of a row selected with INSTANCE_WITH_TOOL_SELECT; null when the join found none. */
export function instanceWithTool(row: Record<string, unknown>): InstanceWithTool | null {
  if (row['i.id'] === null) return null;
  return {
    ...pick(row, TOOL_INSTANCE_COLUMNS, 'i.'),
    installation: { ...pick(row, INSTALLATION_COLUMNS, 'n.'), app: pick(row, APP_COLUMNS, 'na.') },
    httpTool: row['h.id'] === null ? null : pick(row, HTTP_TOOL_COLUMNS, 'h.'),
  };
}
