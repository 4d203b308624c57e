export * from './apps.repository.js';
export * from './database-url.js';
export * from './http-tools.repository.js';
export * from './migrations.js';
export * from './page.js';
export * from './persistence.module.js';
export * from './prisma.service.js';
export * from './tool-instances.repository.js';
export type { App, HttpTool } from './generated/client.js';
