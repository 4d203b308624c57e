export * from './address-guard.js';
export * from './answer-headers.js';
export * from './app-dispatchers.js';
export * from './host-resolver.js';
export * from './outbound-http.module.js';
export * from './user-agent.js';
