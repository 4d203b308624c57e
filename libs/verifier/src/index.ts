export * from './verify-tool-call.js';
