// A worker thread that checks MCP arguments against schemas holding regexes (`pattern`, `patternProperties`), which
// may backtrack for minutes: off the API's event loop, ended by the API when a check outlives its bound
// (off-loop-schema-checks.ts). Plain JavaScript, so that it loads as it is, in tests and in dist.
import { parentPort } from 'node:worker_threads';
import { compileOnce, newEngine } from './json-schema-engines.mjs';

/** Compiled schemas kept, as on the event loop's side. */
const MAX_COMPILED = 1000;

/** @typedef {import('./json-schema-engines.mjs').Dialect} Dialect */
/** @typedef {{ key: string, dialect: Dialect, schema: object, args: unknown }} CheckRequest */

/** @type {Map<string, import('ajv').ValidateFunction | string>} a validator, or why the schema cannot be compiled */
const compiled = new Map();
/** @type {Map<Dialect, ReturnType<typeof newEngine>>} */
const engines = new Map();

/** @param {CheckRequest} request */
function validatorOf(request) {
  let validate = compiled.get(request.key);
  if (validate === undefined) {
    let engine = engines.get(request.dialect);
    if (!engine) engines.set(request.dialect, (engine = newEngine(request.dialect)));
    try {
      validate = compileOnce(engine, request.schema);
    } catch (error) {
      validate = /** @type {Error} */ (error).message;
    }
    compiled.set(request.key, validate);
    if (compiled.size > MAX_COMPILED) compiled.delete(/** @type {string} */ (compiled.keys().next().value));
  }
  return validate;
}

const port = parentPort;
if (!port) throw new Error('schema-check-thread.mjs runs as a worker thread');
port.on('message', (/** @type {CheckRequest} */ request) => {
  const validate = validatorOf(request);
  if (typeof validate === 'string') return port.postMessage({ outcome: { kind: 'uncheckable', reason: validate } });
  // From here on only the check runs: the API gives it a shorter bound than the compilation.
  port.postMessage({ compiled: true });
  try {
    if (validate(request.args)) return port.postMessage({ outcome: { kind: 'valid' } });
    port.postMessage({ outcome: { kind: 'invalid', errors: validate.errors ?? [] } });
  } catch (error) {
    port.postMessage({ outcome: { kind: 'uncheckable', reason: /** @type {Error} */ (error).message } });
  }
});
port.postMessage({ ready: true });
