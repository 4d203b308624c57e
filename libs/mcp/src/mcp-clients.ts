import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppDispatchers, TOOLGATE_VERSION } from '../../delivery/src/index.js';
import { boundedFetch, withRequestScope } from './bounded-fetch.js';

/** Where an app's MCP server is, with its auth header value decrypted for this use only. */
export interface McpServerTarget {
  appId: string;
  url: string;
  headerName: string | null;
  headerValue: string | null;
}

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  execution?: { taskSupport?: string };
}

export interface McpCallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

interface Connection {
  fingerprint: string;
  client: Client;
  ready: Promise<void>;
}

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Toolgate as an MCP client: one Streamable HTTP connection per app (so one failing server
 * never touches another), the auth header on every request, SSRF-guarded through the app's own
 * agent, answers bounded (boundedFetch), re-initialized once when the server forgot the session.
 */
@Injectable()
export class McpClients implements OnApplicationShutdown {
  private readonly logger = new Logger('McpClients');
  private readonly connections = new Map<string, Connection>();
  /** Called when a server says its tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged?: (appId: string) => void;

  constructor(@Inject(AppDispatchers) private readonly dispatchers: AppDispatchers) {}

  /** Every tool the server lists, following `nextCursor` to the last page (each page at most 1 MiB). */
  async listTools(target: McpServerTarget): Promise<ListedTool[]> {
    return this.withClient(target, (client) =>
      withRequestScope(async (scope) => {
        const listed = await client.listTools(undefined, { timeout: CONNECT_TIMEOUT_MS * 3, signal: scope.signal, cacheMode: 'refresh' });
        return listed.tools as ListedTool[];
      }),
    );
  }

  async callTool(target: McpServerTarget, name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<Record<string, unknown>> {
    return this.withClient(target, (client) =>
      withRequestScope(async (scope) => {
        const signal = options.signal ? AbortSignal.any([options.signal, scope.signal]) : scope.signal;
        return (await client.callTool(
          { name, arguments: args },
          { timeout: options.timeoutMs, signal, onprogress: options.onprogress, resetTimeoutOnProgress: false },
        )) as Record<string, unknown>;
      }),
    );
  }

  /** Forgets an app's connection (its settings changed, or it was deleted). */
  async forget(appId: string): Promise<void> {
    const connection = this.connections.get(appId);
    this.connections.delete(appId);
    await connection?.client.close().catch(() => undefined);
  }

  private async withClient<T>(target: McpServerTarget, use: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.connect(target);
    try {
      return await use(client);
    } catch (error) {
      // A server that restarted forgets our session: initialize once more and retry once.
      if (error instanceof SdkHttpError && (error.status === 404 || error.status === 400)) {
        await this.forget(target.appId);
        return use(await this.connect(target));
      }
      throw error;
    }
  }

  private async connect(target: McpServerTarget): Promise<Client> {
    const fingerprint = createHash('sha256').update(JSON.stringify([target.url, target.headerName, target.headerValue])).digest('hex');
    const existing = this.connections.get(target.appId);
    if (existing && existing.fingerprint === fingerprint) {
      await existing.ready;
      return existing.client;
    }
    if (existing) await this.forget(target.appId);
    const client = new Client(
      { name: 'toolgate', version: TOOLGATE_VERSION },
      {
        versionNegotiation: { mode: 'auto' },
        listChanged: { tools: { autoRefresh: false, onChanged: () => this.onToolsChanged?.(target.appId) } },
      },
    );
    client.onerror = (error) => this.logger.debug(`app ${target.appId}: ${error.message}`);
    const headers: Record<string, string> = target.headerName && target.headerValue ? { [target.headerName]: target.headerValue } : {};
    // redirectPolicy 'follow' leaves redirects to boundedFetch, which follows none
    const transport = new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers },
      fetch: boundedFetch(() => this.dispatchers.forApp(target.appId)),
      redirectPolicy: 'follow',
    });
    const ready = client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    const connection: Connection = { fingerprint, client, ready };
    this.connections.set(target.appId, connection);
    try {
      await ready;
    } catch (error) {
      if (this.connections.get(target.appId) === connection) this.connections.delete(target.appId);
      await client.close().catch(() => undefined);
      throw error;
    }
    return client;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.connections.keys()].map((appId) => this.forget(appId)));
  }
}
