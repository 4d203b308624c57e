export * from './response-excerpt.js';
export * from './webhook-sender.js';
