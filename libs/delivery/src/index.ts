export * from './address-guard.js';
export * from './app-dispatchers.js';
export * from './delivery.module.js';
export * from './host-resolver.js';
export * from './user-agent.js';
export * from './response-excerpt.js';
export * from './webhook-sender.js';
