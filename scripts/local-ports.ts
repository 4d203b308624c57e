// npm start's ports: the API's PORT and the worker's WORKER_METRICS_PORT. A port the user set that is taken stops the
// start, naming its variable; one left unset whose default is taken moves to a free port outside production, so that
// another program on 3000 or 9464 does not stop a local start.
import { type Env, explainListenError } from '../libs/config/src/index.js';
import { freePort, listenError } from './local-services.js';

const PORTS = [
  { variable: 'PORT', what: 'the API', host: () => '::' }, // the API listens on every interface
  { variable: 'WORKER_METRICS_PORT', what: "the worker's metrics", host: (config: Env) => config.WORKER_METRICS_HOST },
] as const;

/**
 * Checks the ports `config` names, filling `env` with a free one for a variable left unset whose default is taken.
 * Returns what to tell the user; throws, naming the variable, when a port cannot be used.
 */
export async function chooseLocalPorts(env: NodeJS.ProcessEnv, config: Env): Promise<string[]> {
  const said: string[] = [];
  for (const { variable, what, host } of PORTS) {
    const port = config[variable];
    if (port === 0) continue; // any free port
    const error = await listenError(port, host(config));
    if (!error) continue;
    if (error.code !== 'EADDRINUSE' || env[variable] || config.NODE_ENV === 'production')
      throw explainListenError(error, variable, port);
    const free = await freePort(host(config));
    env[variable] = String(free);
    said.push(`port ${port} is in use: ${what} listens on ${free} instead (set ${variable} to choose the port)`);
  }
  return said;
}
