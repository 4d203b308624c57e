import { Logger } from '@nestjs/common';
import { developmentDefaultsInUse, loadEnvOrExit } from '../../../libs/config/src/index.js';
import { createApiApp } from './create-api-app.js';

const env = loadEnvOrExit();
const app = await createApiApp(env);
for (const warning of developmentDefaultsInUse(env)) new Logger('Configuration').warn(`WARNING: ${warning}`);
await app.listen(env.PORT);
new Logger('Api').log(`Toolgate API on ${env.PUBLIC_BASE_URL} (docs: ${env.PUBLIC_BASE_URL}/docs)`);
