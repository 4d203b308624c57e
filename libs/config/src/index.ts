export * from './env.js';
export * from './config.module.js';
export * from './port-in-use.js';
