import type { Agent, Dispatcher } from 'undici';
import { createGuardedAgent } from './address-guard.js';
import { AppLookups, type HostResolver } from './host-resolver.js';

/** How many different names one app may have in DNS lookups at once. */
export const LOOKUPS_IN_FLIGHT_PER_APP = 4;
/** An app's agent unused this long is closed (its keep-alive sockets are long gone by then). */
const IDLE_AGENT_MS = 5 * 60_000;

/**
 * One SSRF-guarded undici Agent per app, for webhooks and MCP alike: each has its own connection
 * pool and its own bounded lookups, so an app whose DNS or server hangs holds only its own.
 */
export class AppDispatchers {
  private readonly agents = new Map<string, { agent: Agent; usedAt: number }>();
  private sweptAt = Date.now();

  constructor(private readonly options: { allowPrivate: boolean; resolver: HostResolver; lookupsPerApp?: number }) {}

  /** The dispatcher of `appId`'s outgoing requests; ask again for every request (idle ones are closed). */
  forApp(appId: string): Dispatcher {
    const now = Date.now();
    if (now - this.sweptAt > IDLE_AGENT_MS / 5) this.closeIdle(now);
    let entry = this.agents.get(appId);
    if (!entry) {
      const lookups = new AppLookups(this.options.resolver, this.options.lookupsPerApp ?? LOOKUPS_IN_FLIGHT_PER_APP);
      entry = { agent: createGuardedAgent({ allowPrivate: this.options.allowPrivate, lookups }), usedAt: now };
      this.agents.set(appId, entry);
    }
    entry.usedAt = now;
    return entry.agent;
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()].map((entry) => entry.agent);
    this.agents.clear();
    await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)));
  }

  private closeIdle(now: number): void {
    this.sweptAt = now;
    for (const [appId, entry] of this.agents) {
      if (now - entry.usedAt < IDLE_AGENT_MS) continue;
      this.agents.delete(appId);
      void entry.agent.close().catch(() => undefined); // waits for what is still in flight
    }
  }
}
