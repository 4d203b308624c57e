import { Logger } from '@nestjs/common';
import { developmentDefaultsInUse, loadEnvOrExit } from '../../../libs/config/src/index.js';
import { createApiApp } from './create-api-app.js';

const env = loadEnvOrExit();
for (const warning of developmentDefaultsInUse(env)) console.warn(`\n  WARNING: ${warning}\n`);
const app = await createApiApp(env);
await app.listen(env.PORT);
new Logger('Api').log(`Toolgate API on ${env.PUBLIC_BASE_URL} (docs: ${env.PUBLIC_BASE_URL}/docs)`);
