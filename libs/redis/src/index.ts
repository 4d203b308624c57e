export * from './redis.js';
export * from './redis.module.js';
