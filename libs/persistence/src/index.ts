export * from './apps.repository.js';
export * from './approved-tool-definitions.repository.js';
export * from './call-event-ledger.js';
export * from './call-states.js';
export * from './database-health.repository.js';
export * from './database-pool.js';
export * from './database-unavailable.js';
export * from './database-url.js';
export * from './encrypted-columns.repository.js';
export * from './event-endpoints.repository.js';
export * from './finished-tool-calls.repository.js';
export * from './http-tools.repository.js';
export * from './idempotency-keys.repository.js';
export * from './installations.repository.js';
export * from './iso-timestamp.js';
export * from './launch-codes.repository.js';
export * from './mcp-tools.repository.js';
export * from './migrations.js';
export * from './page.js';
export * from './persistence.module.js';
export * from './prisma.service.js';
export * from './storable.js';
export * from './tool-call-ledger.js';
export * from './tool-instances.repository.js';
export type {
  App,
  ApprovedToolDefinition,
  HttpTool,
  Installation,
  LaunchCode,
  McpToolSnapshot,
  Prisma,
  ToolInstance,
} from './generated/client.js';
export type { OverdueCall } from './sql-columns.js';
export * from './project-limits.repository.js';
