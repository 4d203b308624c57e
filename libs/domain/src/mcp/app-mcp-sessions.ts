import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { McpServerChanges } from '../../../broadcast/src/index.js';
import { McpClients } from '../../../mcp/src/index.js';

/**
 * Ends an app's sessions with its MCP server in every process (API replicas and workers) once its settings no
 * longer name that server or header, or its tools are off: this process's at once, the others' when the
 * announcement arrives. Without Redis the others' sessions end on their next use (a changed URL or header) or
 * once idle for MCP_SESSION_IDLE_S.
 */
@Injectable()
export class AppMcpSessions implements OnModuleInit {
  private readonly logger = new Logger('AppMcpSessions');

  constructor(
    private readonly clients: McpClients,
    private readonly changes: McpServerChanges,
  ) {}

  onModuleInit(): void {
    this.changes.listen((appId) => this.clients.endSessions(appId));
  }

  /** After the change is committed. */
  async end(appId: string): Promise<void> {
    this.clients.endSessions(appId);
    await this.changes
      .announce(appId)
      .catch((error: Error) =>
        this.logger.warn(
          `app ${appId}: other processes end its MCP sessions when idle for MCP_SESSION_IDLE_S (${error.message})`,
        ),
      );
  }
}
