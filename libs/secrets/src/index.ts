export * from './secret-box.js';
export * from './secrets.module.js';
