import type { App, ToolCall, ToolInstance, ToolKind } from '../../../../persistence/src/index.js';

/** What a call's next attempt checks first: its app, installation, tool and instance as they are now (null where gone). */
export interface CallSurroundings {
  call: Pick<ToolCall, 'toolKind' | 'toolName' | 'test'>;
  app: Pick<App, 'agentToolsEnabled' | 'agentToolsMode'> | null;
  installationExists: boolean;
  instance: Pick<ToolInstance, 'enabled' | 'privateDataRequired' | 'privateDataEnc'> | null;
  httpToolExists: boolean;
}

/** The mode an app must be in for a call of this tool kind to go on. */
const MODE_OF_KIND: Record<ToolKind, string> = { http: 'constructor', mcp: 'mcp' };

/**
 * Why a queued call cannot make another attempt, naming what changed since it was accepted;
 * null when what it calls is still there and switched on (docs/api.md "When what a call uses changes").
 * A developer's test call (replayed) has no installation or instance: only its app and tool must still be there.
 */
export function whyCallStops(target: CallSurroundings): string | null {
  const { call, app, instance } = target;
  if (!app) return 'the app was deleted';
  if (call.test)
    return call.toolKind === 'http' && !target.httpToolExists ? `the tool "${call.toolName}" was deleted` : null;
  if (!app.agentToolsEnabled) return "the app's agent tools were switched off";
  if (MODE_OF_KIND[call.toolKind] !== app.agentToolsMode)
    return `the app's agent tools mode was switched to ${app.agentToolsMode}`;
  if (!target.installationExists) return 'the app was uninstalled from the project';
  if (call.toolKind === 'http' && !target.httpToolExists) return `the tool "${call.toolName}" was deleted`;
  if (!instance) return 'the tool instance was deleted';
  if (!instance.enabled) return 'the tool instance was disabled';
  if (instance.privateDataRequired && instance.privateDataEnc === null) {
    return "the tool instance's private data was cleared, and the tool requires it";
  }
  return null;
}
