import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { McpClients } from '../../../mcp/src/index.js';
import { RefreshMcpSnapshot } from './refresh-mcp-snapshot.use-case.js';

/** At most one reload per app this often, however many `list_changed` notifications its server sends. */
export const LIST_CHANGED_MIN_INTERVAL_MS = 3_000;

interface AppReloads {
  running: boolean;
  /** A notification arrived since the last reload started: one more is due. */
  due: boolean;
  timer: NodeJS.Timeout | null;
  startedAt: number;
}

/**
 * Reloads an app's snapshot when its server sends `notifications/tools/list_changed`, debounced:
 * one reload per app in flight, none sooner than LIST_CHANGED_MIN_INTERVAL_MS after the last,
 * and notifications meanwhile fold into one more reload.
 */
@Injectable()
export class McpListChangedRefresh implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpSnapshots');
  private readonly apps = new Map<string, AppReloads>();

  constructor(
    private readonly clients: McpClients,
    private readonly refresh: RefreshMcpSnapshot,
  ) {}

  onModuleInit(): void {
    this.clients.onToolsChanged = (appId) => this.changed(appId);
  }

  onApplicationShutdown(): void {
    for (const state of this.apps.values()) if (state.timer) clearTimeout(state.timer);
    this.apps.clear();
  }

  private changed(appId: string): void {
    let state = this.apps.get(appId);
    if (!state) {
      state = { running: false, due: false, timer: null, startedAt: 0 };
      this.apps.set(appId, state);
    }
    state.due = true;
    this.schedule(appId, state);
  }

  private schedule(appId: string, state: AppReloads): void {
    if (state.running || state.timer || !state.due) return;
    const wait = Math.max(0, state.startedAt + LIST_CHANGED_MIN_INTERVAL_MS - Date.now());
    state.timer = setTimeout(() => void this.reload(appId, state), wait);
  }

  private async reload(appId: string, state: AppReloads): Promise<void> {
    state.timer = null;
    state.due = false;
    state.running = true;
    state.startedAt = Date.now();
    try {
      await this.refresh.execute(appId);
    } catch (error) {
      this.logger.warn(`app ${appId}: ${(error as Error).message}`);
    } finally {
      state.running = false;
    }
    if (this.apps.get(appId) !== state) return;
    if (state.due) return this.schedule(appId, state);
    // forget the app once the interval has passed with nothing new (until then, this timer holds later notifications)
    state.timer = setTimeout(
      () => {
        state.timer = null;
        if (state.due) this.schedule(appId, state);
        else this.apps.delete(appId);
      },
      Math.max(0, state.startedAt + LIST_CHANGED_MIN_INTERVAL_MS - Date.now()),
    );
  }
}
