import type { ExecutionMode, RetryWindow } from '../../../persistence/src/index.js';
import type { FieldProblem } from '../errors.js';

export const ATTEMPT_TIMEOUTS_S = [10, 30, 60, 120] as const;
export type AttemptTimeoutS = (typeof ATTEMPT_TIMEOUTS_S)[number];

export const PARAMETER_TYPES = ['string', 'number', 'boolean'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

export const MAX_PARAMETERS = 32;

export interface LocalizedText {
  ru: string;
  en: string;
}

// A type (not an interface), so that it is a JSON value: the tool's Json column casts to it directly.
export type ToolParameter = {
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
};

/** Every field of an HTTP tool, in the API's vocabulary. */
export interface HttpToolDefinition {
  name: string;
  title: LocalizedText;
  description: LocalizedText;
  response_description: LocalizedText | null;
  agent_description: string | null;
  handler_url: string;
  parameters: ToolParameter[];
  configurable: boolean;
  allow_multiple: boolean;
  execution_mode: ExecutionMode;
  attempt_timeout_s: AttemptTimeoutS;
  retry_window: RetryWindow | null;
}

/** The rules between fields of one tool (422 when broken); checked on create and on the merged result of an update. */
export function toolDefinitionProblems(tool: HttpToolDefinition): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (tool.execution_mode === 'instant' && tool.retry_window !== null) {
    problems.push({ path: 'retry_window', message: 'an instant tool is never retried: remove retry_window' });
  }
  if (tool.execution_mode !== 'instant' && tool.retry_window === null) {
    problems.push({
      path: 'retry_window',
      message: `required for execution_mode "${tool.execution_mode}": one of 5m, 3h, 1d`,
    });
  }
  if (tool.allow_multiple && !tool.configurable) {
    problems.push({
      path: 'allow_multiple',
      message:
        'only a configurable tool can allow multiple instances: set configurable to true or allow_multiple to false',
    });
  }
  const firstIndexByName = new Map<string, number>();
  tool.parameters.forEach((parameter, index) => {
    const first = firstIndexByName.get(parameter.name);
    if (first !== undefined) {
      problems.push({
        path: `parameters.${index}.name`,
        message: `"${parameter.name}" is already the name of parameters.${first}`,
      });
    } else {
      firstIndexByName.set(parameter.name, index);
    }
  });
  return problems;
}
