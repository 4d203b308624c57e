import type { ErrorObject } from 'ajv';
import type { FieldProblem } from '../errors.js';

/**
 * Ajv's errors as problems at `arguments.<path>`, in words a model can act on: a missing
 * property is named at its own path, an unknown one as unknown; one problem per path and message.
 */
export function jsonSchemaProblems(errors: readonly ErrorObject[], knownNames: readonly string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const problem = problemOf(error, knownNames);
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function problemOf(error: ErrorObject, knownNames: readonly string[]): FieldProblem {
  const at = pathOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { path: `${at}.${params.missingProperty}`, message: 'required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    const takes = at === 'arguments' && knownNames.length > 0 ? `: the tool takes ${knownNames.join(', ')}` : '';
    return { path: `${at}.${params.additionalProperty}`, message: `unknown argument${takes}` };
  }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return { path: at, message: `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  if (error.keyword === 'const') return { path: at, message: `must be ${JSON.stringify(params.allowedValue)}` };
  return { path: at, message: error.message ?? `fails "${error.keyword}"` };
}

/** A JSON Pointer into the arguments (`/a/0/b`) as the dotted path problems use (`arguments.a.0.b`). */
function pathOf(instancePath: string): string {
  if (instancePath === '') return 'arguments';
  const segments = instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return ['arguments', ...segments].join('.');
}
