// Plain JavaScript, so that the schema-check thread (schema-check-thread.mjs) loads it as it is, in tests and in dist.
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

/** @typedef {'2020-12' | '2019-09' | 'draft-07'} Dialect */

/**
 * The options the MCP SDK's own validator uses (unknown keywords pass, formats are checked, every error is
 * reported), and own properties only: a property named `constructor` or `toString` is not read from the prototype.
 * @type {import('ajv').Options}
 */
const OPTIONS = { strict: false, validateSchema: false, validateFormats: true, allErrors: true, ownProperties: true };

/**
 * A validator of one JSON Schema dialect, with the formats.
 * @param {Dialect} dialect
 * @returns {Pick<Ajv, 'compile' | 'removeSchema'>}
 */
export function newEngine(dialect) {
  const engine =
    dialect === '2020-12' ? new Ajv2020(OPTIONS) : dialect === '2019-09' ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
  // ajv-formats is CommonJS: the default import is its module, whose `default` is the plugin (typed and at run time).
  ajvFormats.default(engine);
  return engine;
}

/**
 * Compiles `schema` with `engine`, which forgets it at once: the caller keeps the function, and another app may
 * reuse the schema's `$id`.
 * @param {Pick<Ajv, 'compile' | 'removeSchema'>} engine
 * @param {object} schema
 */
export function compileOnce(engine, schema) {
  try {
    return engine.compile(schema);
  } finally {
    engine.removeSchema(schema);
  }
}
