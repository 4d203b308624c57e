export * from './address-guard.js';
export * from './delivery.module.js';
export * from './user-agent.js';
export * from './response-excerpt.js';
export * from './webhook-sender.js';
