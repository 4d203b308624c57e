export * from './call-events.js';
export * from './delivery-queue.js';
export * from './jobs.js';
export * from './queue.module.js';
export * from './redis.js';
export * from './toolset-generations.js';
