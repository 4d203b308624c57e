export * from './delivery-queue.js';
export * from './jobs.js';
export * from './lanes.js';
export * from './queue.module.js';
