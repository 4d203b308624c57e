import { Injectable, Logger } from '@nestjs/common';
import type { ValidateFunction } from 'ajv';
import type { McpToolSnapshot } from '../../../persistence/src/index.js';
import type { FieldProblem } from '../errors.js';
import { type Dialect, compileOnce, newEngine } from './json-schema-engines.mjs';
import { jsonSchemaProblems } from './json-schema-problems.js';
import { OffLoopSchemaChecks } from './off-loop-schema-checks.js';

/** Compiled schemas kept; a snapshot refresh makes new rows, so old entries just age out. */
const MAX_COMPILED = 1000;

type Engine = ReturnType<typeof newEngine>;
/** A schema with regexes, checked in a worker thread: only its dialect is known here. */
type OffLoop = { offLoop: Dialect };
/** How a tool's arguments are checked: here, off the event loop, or not at all (`null`). */
type Checker = ValidateFunction | OffLoop | null;

/**
 * Checks an MCP tool call's arguments against the tool's `inputSchema` before anything is sent.
 * Each schema is compiled once per snapshot row; one the validator cannot compile (or a dialect it
 * does not know) is logged once and the call goes out unchecked: the server still checks it.
 * A schema holding regexes (`pattern`, `patternProperties`, `format: "regex"`) is checked off the event loop with a
 * time bound (OffLoopSchemaChecks), since a regex can backtrack for minutes; the others are checked here, at no extra
 * cost.
 */
@Injectable()
export class McpArgumentChecks {
  private readonly logger = new Logger('McpArguments');
  private readonly compiled = new Map<string, Checker>();
  private readonly engines = new Map<Dialect, Engine>();

  constructor(private readonly offLoop: OffLoopSchemaChecks) {}

  async problems(tool: McpToolSnapshot, args: Record<string, unknown>): Promise<FieldProblem[]> {
    const validate = this.checkerOf(tool);
    if (!validate) return [];
    if ('offLoop' in validate) return this.problemsOffLoop(tool, validate.offLoop, args);
    try {
      if (validate(args)) return [];
    } catch (error) {
      this.logger.warn(
        `MCP tool "${tool.name}" of app ${tool.appId}: arguments not checked (${(error as Error).message})`,
      );
      return [];
    }
    return jsonSchemaProblems(validate.errors ?? [], propertyNames(tool));
  }

  private async problemsOffLoop(tool: McpToolSnapshot, dialect: Dialect, args: Record<string, unknown>) {
    const key = keyOf(tool);
    const outcome = await this.offLoop.check(tool.appId, { key, dialect, schema: tool.inputSchema as object, args });
    switch (outcome.kind) {
      case 'valid':
        return [];
      case 'invalid':
        return jsonSchemaProblems(outcome.errors, propertyNames(tool));
      case 'refused':
        return [{ path: 'arguments', message: outcome.reason }];
      case 'uncheckable':
        // As a schema that does not compile here: logged once, then sent unchecked without asking the thread.
        if (this.compiled.has(key)) this.compiled.set(key, this.cannotCheck(tool, outcome.reason));
        return [];
    }
  }

  private checkerOf(tool: McpToolSnapshot): Checker {
    const key = keyOf(tool);
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

  private compile(tool: McpToolSnapshot): Checker {
    const schema = tool.inputSchema;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      return this.cannotCheck(tool, 'not a JSON object');
    }
    const declared = (schema as { $schema?: unknown }).$schema;
    const dialect = dialectOf(declared);
    if (!dialect) return this.cannotCheck(tool, `unknown $schema ${JSON.stringify(declared)}`);
    if (holdsRegexes(schema)) return { offLoop: dialect };
    try {
      return compileOnce(this.engine(dialect), schema);
    } catch (error) {
      return this.cannotCheck(tool, (error as Error).message);
    }
  }

  private cannotCheck(tool: McpToolSnapshot, why: string): null {
    this.logger.warn(
      `MCP tool "${tool.name}" of app ${tool.appId}: its inputSchema cannot be checked (${why}); calls go out unchecked`,
    );
    return null;
  }

  private engine(dialect: Dialect): Engine {
    let engine = this.engines.get(dialect);
    if (!engine) this.engines.set(dialect, (engine = newEngine(dialect)));
    return engine;
  }
}

/** The compiled schema's cache key: one snapshot row at one refresh. */
function keyOf(tool: McpToolSnapshot): string {
  return `${tool.id}\u0000${tool.refreshedAt.getTime()}`;
}

function propertyNames(tool: McpToolSnapshot): string[] {
  const properties = (tool.inputSchema as { properties?: unknown }).properties;
  return properties && typeof properties === 'object' ? Object.keys(properties) : [];
}

/**
 * Whether checking the schema runs regexes, at any depth: its own against the arguments (`pattern`,
 * `patternProperties`), or an argument compiled as one (`format: "regex"`, 0.5 s for 1 MiB of dots). A property that
 * happens to be named so only costs its calls the trip to the thread.
 */
export function holdsRegexes(schema: object): boolean {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      stack.push(...(node as unknown[]));
      continue;
    }
    const fields = node as Record<string, unknown>;
    if (typeof fields.pattern === 'string' || Object.hasOwn(fields, 'patternProperties')) return true;
    if (fields.format === 'regex') return true;
    for (const key in fields) if (Object.hasOwn(fields, key)) stack.push(fields[key]);
  }
  return false;
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
