export * from './delivery-queue.js';
export * from './jobs.js';
export * from './queue.module.js';
