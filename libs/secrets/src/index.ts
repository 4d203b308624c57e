export * from './secret-box.js';
export * from './secrets.module.js';
export * from './random-pool.js';
