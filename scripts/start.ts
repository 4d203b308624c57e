// npm start: everything on this machine with nothing set. Starts an embedded Postgres where
// DATABASE_URL is unset and a local redis-server where REDIS_URL is unset (data under .data/),
// applies migrations, then runs the API and the worker until Ctrl-C. Outside production it allows handlers on
// private addresses unless ALLOW_PRIVATE_NETWORK says otherwise, and moves the API or the worker's metrics to a free
// port when their default one is taken and the variable is unset.
// Under a supervisor: SIGTERM, SIGINT or SIGHUP stops everything; so does any part ending by itself (exit code 1).
import { resolve } from 'node:path';
import { loadEnvOrExit } from '../libs/config/src/index.js';
import { chooseLocalPorts } from './local-ports.js';
import { applyLocalMode } from './local-services.js';
import { type LocalToolgate, startLocalToolgate } from './local-toolgate.js';

const dataDir = resolve(process.env.TOOLGATE_DATA_DIR ?? '.data');
let starting: Promise<LocalToolgate> | undefined;
let stopping: Promise<never> | undefined;

function say(message: string) {
  console.log(`[toolgate] ${message}`);
}

/** Stops what has started (a start in progress gets there first), then exits with `code`; once. */
function stopAll(code: number, why?: string): Promise<never> {
  stopping ??= (async () => {
    if (why) say(why);
    const toolgate = await starting?.catch(() => undefined);
    await toolgate?.stop();
    process.exit(code);
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void stopAll(0, `${signal}: stopping the API, the worker and the services`));
}
// After SIGHUP (a closed terminal) writing to it fails; the stop goes on.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
// npm passes SIGINT and SIGTERM on to this process but dies of SIGHUP, leaving it behind: when the npm that
// started it has gone (this process has a new parent), stop.
if (process.env.npm_lifecycle_event) {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stopAll(1, 'npm, which started Toolgate, has gone: stopping');
  }, 1000).unref();
}

try {
  const config = loadEnvOrExit();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const warning of applyLocalMode(env)) say(`WARNING: ${warning}`);
  for (const line of await chooseLocalPorts(env, config)) say(line);
  say(`data in ${dataDir}`);
  starting = startLocalToolgate({
    dataDir,
    persistent: true,
    env,
    say,
    output: 'terminal',
    callerHandlesSignals: true,
    onUnexpectedExit: (name, how) => void stopAll(1, `${name} ${how}: stopping the rest`),
  });
  await starting;
} catch (error) {
  console.error(`[toolgate] could not start: ${(error as Error).message}`);
  await stopAll(1);
}
