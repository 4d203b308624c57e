// npm start: everything on this machine with nothing set. Starts an embedded Postgres where
// DATABASE_URL is unset and a local redis-server where REDIS_URL is unset (data under .data/),
// applies migrations, then runs the API and the worker until Ctrl-C. Outside production it allows handlers on
// private addresses unless ALLOW_PRIVATE_NETWORK says otherwise.
import { resolve } from 'node:path';
import { loadEnvOrExit } from '../libs/config/src/index.js';
import { applyLocalMode } from './local-services.js';
import { type LocalToolgate, startLocalToolgate } from './local-toolgate.js';

const dataDir = resolve(process.env.TOOLGATE_DATA_DIR ?? '.data');
let toolgate: LocalToolgate | undefined;
let stopping = false;

function say(message: string) {
  console.log(`[toolgate] ${message}`);
}

async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    await toolgate?.stop();
  }
  process.exit(code);
}

process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  loadEnvOrExit();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const warning of applyLocalMode(env)) say(`WARNING: ${warning}`);
  say(`data in ${dataDir}`);
  toolgate = await startLocalToolgate({
    dataDir,
    persistent: true,
    env,
    say,
    output: 'terminal',
    onUnexpectedExit: (name, code) => {
      say(`${name} stopped (exit code ${code}); stopping the rest.`);
      void stopAll(code || 1);
    },
  });
} catch (error) {
  console.error(`[toolgate] could not start: ${(error as Error).message}`);
  await stopAll(1);
}
