export * from './idle-heap-release.js';
export * from './log-censor.js';
export * from './logging.js';
export * from './metrics.js';
export * from './observability.module.js';
