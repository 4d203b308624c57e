import type { ToolInstance } from '../../../persistence/src/index.js';
import { type ConfiguredParameter, configuredParameterProblems } from '../calls/accepting/tool-arguments.js';
import type { FieldProblem } from '../errors.js';
import type { ToolParameter } from '../tools/http-tool.js';

/** Serialized size limit of `configuration` and `private_data`. */
export const MAX_OBJECT_BYTES = 64 * 1024;

export const PRIVATE_DATA_ACTIONS = ['preserve', 'replace', 'clear'] as const;
export type PrivateDataAction = (typeof PRIVATE_DATA_ACTIONS)[number];

export const INSTANCE_STATUSES = ['active', 'disabled', 'needs_configuration', 'needs_private_data'] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

export function instanceStatus(
  instance: Pick<ToolInstance, 'enabled' | 'privateDataRequired' | 'privateDataEnc' | 'configurationProblem'>,
): InstanceStatus {
  if (!instance.enabled) return 'disabled';
  if (instance.configurationProblem !== null) return 'needs_configuration';
  if (instance.privateDataRequired && instance.privateDataEnc === null) return 'needs_private_data';
  return 'active';
}

export interface InstanceSettingsInput {
  title?: string | null;
  configuration?: Record<string, unknown>;
  configured_parameters?: ConfiguredParameter[];
  private_data_action?: PrivateDataAction;
  private_data?: Record<string, unknown>;
  private_data_required?: boolean;
  enabled?: boolean;
}

/** Rules between fields of one instance body (422). */
export function instanceSettingsProblems(input: InstanceSettingsInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (input.configuration !== undefined && Buffer.byteLength(JSON.stringify(input.configuration)) > MAX_OBJECT_BYTES) {
    problems.push({ path: 'configuration', message: 'must be at most 64 KiB serialized' });
  }
  if (input.private_data !== undefined && Buffer.byteLength(JSON.stringify(input.private_data)) > MAX_OBJECT_BYTES) {
    problems.push({ path: 'private_data', message: 'must be at most 64 KiB serialized' });
  }
  if (input.private_data_action === 'replace' && input.private_data === undefined) {
    problems.push({ path: 'private_data', message: 'required when private_data_action is "replace"' });
  }
  if (
    input.private_data !== undefined &&
    input.private_data_action !== undefined &&
    input.private_data_action !== 'replace'
  ) {
    problems.push({
      path: 'private_data',
      message: `given with private_data_action "${input.private_data_action}", which ignores it: use "replace" to store it`,
    });
  }
  return problems;
}

/**
 * Why an instance's configured parameters no longer fit its tool's (changed) parameters, in one sentence, or null:
 * the rule that refuses them when the instance is configured (a parameter gone, another type, allowed values of
 * another type). Such an instance is not offered until its configurator saves it again.
 */
export function configurationProblemOf(
  parameters: readonly ToolParameter[],
  configured: readonly ConfiguredParameter[],
): string | null {
  const problems = configuredParameterProblems(parameters, configured);
  if (problems.length === 0) return null;
  const said = problems.map((p) => `${p.path}: ${p.message}`).join('; ');
  return `the tool's parameters changed and this instance's configured_parameters no longer fit them (${said})`;
}

/** True when the body sets something only a configurable tool takes. */
export function setsConfiguration(input: InstanceSettingsInput): boolean {
  return (
    (input.configuration !== undefined && Object.keys(input.configuration).length > 0) ||
    (input.configured_parameters !== undefined && input.configured_parameters.length > 0) ||
    input.private_data !== undefined ||
    input.private_data_required === true
  );
}
