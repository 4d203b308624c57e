import { DomainError, type FieldProblem } from '../../errors.js';
import type { ParameterType, ToolParameter } from '../../tools/http-tool.js';

export type ParameterValue = string | number | boolean;

/** A tool parameter as one instance sees it: its description and `required` may be replaced, its values restricted. */
export interface EffectiveParameter extends ToolParameter {
  allowed_values: ParameterValue[];
}

/** What an instance's configurator says about one of the tool's parameters. */
// A type (not an interface), so that it is a JSON value: the instance's Json column casts to it directly.
export type ConfiguredParameter = {
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
  allowed_values: ParameterValue[];
};

export function isOfType(value: unknown, type: ParameterType): value is ParameterValue {
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  return typeof value === type;
}

/** The tool's parameters with the instance's configured ones laid over them (unlisted ones keep the tool's definition). */
export function effectiveParameters(
  tool: readonly ToolParameter[],
  configured: readonly ConfiguredParameter[],
): EffectiveParameter[] {
  const byName = new Map(configured.map((c) => [c.name, c]));
  return tool.map((parameter) => {
    const c = byName.get(parameter.name);
    return c
      ? { ...parameter, description: c.description, required: c.required, allowed_values: c.allowed_values }
      : { ...parameter, allowed_values: [] };
  });
}

/** Problems of configured parameters against the tool's own (422, at `configured_parameters.i.…`). */
export function configuredParameterProblems(
  tool: readonly ToolParameter[],
  configured: readonly ConfiguredParameter[],
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const toolParams = new Map(tool.map((p) => [p.name, p]));
  const seen = new Set<string>();
  configured.forEach((c, i) => {
    const path = `configured_parameters.${i}`;
    const own = toolParams.get(c.name);
    if (!own) {
      const names = [...toolParams.keys()];
      problems.push({
        path: `${path}.name`,
        message: `the tool has no parameter "${c.name}"${names.length ? ` (it has: ${names.join(', ')})` : ''}`,
      });
      return;
    }
    if (seen.has(c.name)) problems.push({ path: `${path}.name`, message: `"${c.name}" is configured twice` });
    seen.add(c.name);
    if (c.type !== own.type) problems.push({ path: `${path}.type`, message: `"${c.name}" is a ${own.type} parameter` });
    c.allowed_values.forEach((value, j) => {
      if (!isOfType(value, own.type))
        problems.push({ path: `${path}.allowed_values.${j}`, message: `must be a ${own.type}, like the parameter` });
    });
  });
  return problems;
}

/** `null`, missing and `""` (models send it) all mean "no arguments", as `{}` does. */
export function isNoArguments(args: unknown): boolean {
  return args === null || args === undefined || args === '';
}

/** An MCP tool's arguments as the object `tools/call` sends: no arguments are `{}`; anything else not an object is refused. */
export function mcpArgumentsObject(args: unknown): Record<string, unknown> {
  if (isNoArguments(args)) return {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw DomainError.validation([{ path: 'arguments', message: 'must be an object of argument names to values' }]);
  }
  return args as Record<string, unknown>;
}

/**
 * Checks an agent's arguments before anything is sent: known names only, types, required ones
 * present, allowed values. `{}`, `null`, `""` and missing all mean "no arguments".
 */
export function argumentProblems(parameters: readonly EffectiveParameter[], args: unknown): FieldProblem[] {
  if (isNoArguments(args)) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    return [{ path: 'arguments', message: 'must be an object of parameter names to values' }];
  }
  const values = args as Record<string, unknown>;
  const problems: FieldProblem[] = [];
  const byName = new Map(parameters.map((p) => [p.name, p]));
  for (const name of Object.keys(values)) {
    if (!byName.has(name)) {
      const known = parameters.map((p) => p.name);
      problems.push({
        path: `arguments.${name}`,
        message: `unknown parameter${known.length ? `: the tool takes ${known.join(', ')}` : ': the tool takes no parameters'}`,
      });
    }
  }
  for (const parameter of parameters) {
    const path = `arguments.${parameter.name}`;
    // Own properties only: `constructor`, `toString`, `__proto__`… are parameter names, not what `{}` inherits.
    const value = Object.hasOwn(values, parameter.name) ? values[parameter.name] : undefined;
    if (value === undefined || value === null) {
      if (parameter.required)
        problems.push({ path, message: `required (${parameter.type}): ${parameter.description}` });
      continue;
    }
    if (!isOfType(value, parameter.type)) {
      problems.push({ path, message: `must be a ${parameter.type}` });
      continue;
    }
    if (parameter.allowed_values.length > 0 && !parameter.allowed_values.includes(value)) {
      problems.push({
        path,
        message: `must be one of ${parameter.allowed_values.map((v) => JSON.stringify(v)).join(', ')}`,
      });
    }
  }
  return problems;
}

/** Drops null values (they mean "not given") so that handlers receive only what was set. */
export function normalizeArguments(args: unknown): Record<string, ParameterValue> {
  if (isNoArguments(args)) return {};
  return Object.fromEntries(Object.entries(args as Record<string, unknown>).filter(([, v]) => v !== null)) as Record<
    string,
    ParameterValue
  >;
}

/** The JSON Schema a model sees for the parameters; allowed values become `enum`. */
export function parametersJsonSchema(parameters: readonly EffectiveParameter[]) {
  return {
    type: 'object' as const,
    properties: Object.fromEntries(
      parameters.map((p) => [
        p.name,
        {
          type: p.type,
          description: p.description,
          ...(p.allowed_values.length > 0 ? { enum: p.allowed_values } : {}),
        },
      ]),
    ),
    required: parameters.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}
