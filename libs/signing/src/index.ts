export * from './webhook-secret.js';
export * from './sign-webhook.js';
