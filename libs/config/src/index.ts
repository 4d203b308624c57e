export * from './env.js';
export * from './config.module.js';
