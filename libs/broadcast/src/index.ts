export * from './broadcast.module.js';
export * from './call-signals.js';
export * from './mcp-server-changes.js';
export * from './toolset-generations.js';
export * from './fleet-counters.js';
