/** Names that would confuse agents or collide with Toolgate's own namespaces. */
export const RESERVED_APP_NAMES = ['toolgate', 'mcp', 'system', 'admin', 'api', 'agent'] as const;

const APP_NAME = /^[a-z][a-z0-9-]{1,22}[a-z0-9]$/;
const TOOL_NAME = /^[a-z][a-z0-9_]{0,35}$/;
const PARAMETER_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;
/** The function-name rule of model APIs; every agent-facing name must match it. */
export const AGENT_FACING_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Why an app name is refused, or null when it is valid. */
export function appNameProblem(name: string): string | null {
  if (!APP_NAME.test(name)) {
    return 'must be 3–24 characters: lowercase letters, digits and "-", starting with a letter and ending with a letter or digit';
  }
  if (name.includes('--')) return 'must not contain "--"';
  if ((RESERVED_APP_NAMES as readonly string[]).includes(name)) return `"${name}" is reserved`;
  return null;
}

/** Why a tool's system name is refused, or null when it is valid. */
export function toolNameProblem(name: string): string | null {
  if (!TOOL_NAME.test(name)) {
    return 'must be 1–36 characters: lowercase letters, digits and "_", starting with a letter';
  }
  if (name.includes('__')) return 'must not contain "__"';
  return null;
}

/** Why a parameter name is refused, or null when it is valid. */
export function parameterNameProblem(name: string): string | null {
  return PARAMETER_NAME.test(name)
    ? null
    : 'must be 1–64 characters: letters, digits and "_", not starting with a digit';
}

/** `<app name with "-" → "_">_<tool name>`: what the model calls the tool before collisions are resolved. */
export function agentFacingBaseName(appName: string, toolName: string): string {
  return `${appName.replace(/-/g, '_')}_${toolName}`;
}

/** The longest agent-facing name model APIs take. */
const MAX_AGENT_FACING_NAME_CHARS = 64;

/** `base_n`, the base cut so that the whole stays within 64 characters: a suffix never makes a name invalid. */
function numberedName(base: string, n: number): string {
  const suffix = `_${n}`;
  return `${base.slice(0, MAX_AGENT_FACING_NAME_CHARS - suffix.length)}${suffix}`;
}

/**
 * Resolves collisions between an agent's tools: given base names in the order the tools were
 * added, the first keeps its name and later ones get `_2`, `_3`, … (skipping names already taken),
 * the base cut where the suffix would pass 64 characters.
 */
export function resolveAgentFacingNames(baseNames: string[]): string[] {
  const taken = new Set<string>();
  const seen = new Map<string, number>();
  return baseNames.map((base) => {
    let name = base;
    let n = seen.get(base) ?? 1;
    while (taken.has(name)) {
      n += 1;
      name = numberedName(base, n);
    }
    seen.set(base, n);
    taken.add(name);
    return name;
  });
}
