import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { McpClients } from '../../../mcp/src/index.js';
import { RefreshMcpSnapshot } from './refresh-mcp-snapshot.use-case.js';

/** Reloads an app's snapshot when its server sends `notifications/tools/list_changed`. */
@Injectable()
export class McpListChangedRefresh implements OnModuleInit {
  private readonly logger = new Logger('McpSnapshots');

  constructor(
    private readonly clients: McpClients,
    private readonly refresh: RefreshMcpSnapshot,
  ) {}

  onModuleInit(): void {
    this.clients.onToolsChanged = (appId) => {
      this.refresh.execute(appId).catch((error: Error) => this.logger.warn(`app ${appId}: ${error.message}`));
    };
  }
}
