import type { App } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';

/** A switched-off app takes no new tool instances or configurator launches, as it takes no calls. */
export function refuseSwitchedOffApp(app: Pick<App, 'agentToolsEnabled' | 'name'>, what: string): void {
  if (app.agentToolsEnabled) return;
  throw DomainError.conflict(
    `App "${app.name}" has switched its agent tools off: ${what} until its developer switches them on.`,
  );
}
