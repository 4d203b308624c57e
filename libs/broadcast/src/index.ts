export * from './broadcast.module.js';
export * from './call-events.js';
export * from './mcp-server-changes.js';
export * from './toolset-generations.js';
