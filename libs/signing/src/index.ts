export * from './webhook-secret.js';
