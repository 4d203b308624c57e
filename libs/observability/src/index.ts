export * from './logging.js';
export * from './metrics.js';
export * from './observability.module.js';
