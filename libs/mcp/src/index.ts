export * from './bounded-fetch.js';
export * from './mcp-clients.js';
export * from './mcp.module.js';
export { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
