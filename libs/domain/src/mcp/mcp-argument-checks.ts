import { Injectable, Logger } from '@nestjs/common';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { McpToolSnapshot } from '../../../persistence/src/index.js';
import type { FieldProblem } from '../errors.js';
import { jsonSchemaProblems } from './json-schema-problems.js';

/** Compiled schemas kept; a snapshot refresh makes new rows, so old entries just age out. */
const MAX_COMPILED = 1000;

type Engine = Pick<Ajv, 'compile' | 'removeSchema'>;
type Dialect = '2020-12' | '2019-09' | 'draft-07';

/** The options the MCP SDK's own validator uses: unknown keywords pass, formats are checked, every error is reported. */
const OPTIONS: Options = { strict: false, validateSchema: false, validateFormats: true, allErrors: true };

/**
 * Checks an MCP tool call's arguments against the tool's `inputSchema` before anything is sent.
 * Each schema is compiled once per snapshot row; one the validator cannot compile (or a dialect it
 * does not know) is logged once and the call goes out unchecked: the server still checks it.
 */
@Injectable()
export class McpArgumentChecks {
  private readonly logger = new Logger('McpArguments');
  private readonly compiled = new Map<string, ValidateFunction | null>();
  private readonly engines = new Map<Dialect, Engine>();

  problems(tool: McpToolSnapshot, args: Record<string, unknown>): FieldProblem[] {
    const validate = this.validatorOf(tool);
    if (!validate) return [];
    try {
      if (validate(args)) return [];
    } catch (error) {
      this.logger.warn(
        `MCP tool "${tool.name}" of app ${tool.appId}: arguments not checked (${(error as Error).message})`,
      );
      return [];
    }
    const properties = (tool.inputSchema as { properties?: unknown }).properties;
    const names = properties && typeof properties === 'object' ? Object.keys(properties) : [];
    return jsonSchemaProblems(validate.errors ?? [], names);
  }

  private validatorOf(tool: McpToolSnapshot): ValidateFunction | null {
    const key = `${tool.id}\u0000${tool.refreshedAt.getTime()}`;
    const cached = this.compiled.get(key);
    if (cached !== undefined) {
      this.compiled.delete(key); // most recently used goes last
      this.compiled.set(key, cached);
      return cached;
    }
    const validate = this.compile(tool);
    this.compiled.set(key, validate);
    if (this.compiled.size > MAX_COMPILED) this.compiled.delete(this.compiled.keys().next().value as string);
    return validate;
  }

  private compile(tool: McpToolSnapshot): ValidateFunction | null {
    const schema = tool.inputSchema;
    const cannot = (why: string) => {
      this.logger.warn(
        `MCP tool "${tool.name}" of app ${tool.appId}: its inputSchema cannot be checked (${why}); calls go out unchecked`,
      );
      return null;
    };
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return cannot('not a JSON object');
    const dialect = dialectOf((schema as { $schema?: unknown }).$schema);
    if (!dialect) return cannot(`unknown $schema ${JSON.stringify((schema as { $schema?: unknown }).$schema)}`);
    const engine = this.engine(dialect);
    try {
      return engine.compile(schema);
    } catch (error) {
      return cannot((error as Error).message);
    } finally {
      // The compiled function is kept here; the engine forgets it (and its $id, which another app may reuse).
      engine.removeSchema(schema);
    }
  }

  private engine(dialect: Dialect): Engine {
    let engine = this.engines.get(dialect);
    if (!engine) {
      const made =
        dialect === '2020-12' ? new Ajv2020(OPTIONS) : dialect === '2019-09' ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
      addFormats(made);
      engine = made;
      this.engines.set(dialect, engine);
    }
    return engine;
  }
}

/** No `$schema` means 2020-12, as MCP says; draft-06 is checked as draft-07 (its changes are additive). */
export function dialectOf(declared: unknown): Dialect | null {
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') return null;
  if (declared.includes('/draft/2020-12/')) return '2020-12';
  if (declared.includes('/draft/2019-09/')) return '2019-09';
  if (/\/draft-0[67]\/schema#?$/.test(declared)) return 'draft-07';
  return null;
}

function addFormats(engine: Ajv): void {
  // ajv-formats is CommonJS: the default import is its module, whose `default` is the plugin (typed and at run time).
  ajvFormats.default(engine);
}
