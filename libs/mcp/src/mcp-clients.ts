import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppDispatchers, TOOLGATE_VERSION } from '../../outbound-http/src/index.js';
import { boundedFetch, withRequestScope } from './bounded-fetch.js';

/** Where an app's MCP server is, with its auth header value decrypted for this use only. */
export interface McpServerTarget {
  appId: string;
  url: string;
  headerName: string | null;
  headerValue: string | null;
  /** Whose MCP session this use is in: one agent of one project; absent for the app's own (snapshot) session. */
  session?: string;
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
  appId: string;
  fingerprint: string;
  client: Client;
  ready: Promise<void>;
  /** Uses in flight: a busy connection is never closed to make room. */
  inUse: number;
}

const CONNECT_TIMEOUT_MS = 10_000;
/** Sessions kept open per process; past it the least recently used idle one is closed. */
const MAX_CONNECTIONS = 1000;

function connectionKey(target: McpServerTarget): string {
  return target.session === undefined ? target.appId : `${target.appId}\u0000${target.session}`;
}

/**
 * Toolgate as an MCP client: Streamable HTTP connections per app (so one failing server never
 * touches another) and, for calls, per agent of a project (a server's session state never crosses
 * tenants), the auth header on every request, SSRF-guarded through the app's own agent, answers
 * bounded (boundedFetch), re-initialized once when the server forgot the session.
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
        const listed = await client.listTools(undefined, {
          timeout: CONNECT_TIMEOUT_MS * 3,
          signal: scope.signal,
          headers: scope.headers,
          cacheMode: 'refresh',
        });
        return listed.tools;
      }),
    );
  }

  async callTool(
    target: McpServerTarget,
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<Record<string, unknown>> {
    return this.withClient(target, (client) =>
      withRequestScope(async (scope) => {
        const signal = options.signal ? AbortSignal.any([options.signal, scope.signal]) : scope.signal;
        return await client.callTool(
          { name, arguments: args },
          {
            timeout: options.timeoutMs,
            signal,
            headers: scope.headers,
            onprogress: options.onprogress,
            resetTimeoutOnProgress: false,
          },
        );
      }),
    );
  }

  /** Forgets an app's connections (its settings changed, or it was deleted). */
  async forget(appId: string): Promise<void> {
    const keys = [...this.connections].filter(([, connection]) => connection.appId === appId).map(([key]) => key);
    await Promise.all(keys.map((key) => this.drop(key)));
  }

  private async drop(key: string): Promise<void> {
    const connection = this.connections.get(key);
    this.connections.delete(key);
    await connection?.client.close().catch(() => undefined);
  }

  private async withClient<T>(target: McpServerTarget, use: (client: Client) => Promise<T>): Promise<T> {
    const key = connectionKey(target);
    try {
      return await this.using(target, key, use);
    } catch (error) {
      // A server that restarted forgets our session: initialize once more and retry once.
      if (error instanceof SdkHttpError && (error.status === 404 || error.status === 400)) {
        await this.drop(key);
        return this.using(target, key, use);
      }
      throw error;
    }
  }

  private async using<T>(target: McpServerTarget, key: string, use: (client: Client) => Promise<T>): Promise<T> {
    const connection = await this.connect(target, key);
    try {
      return await use(connection.client);
    } finally {
      connection.inUse -= 1;
    }
  }

  /** The open connection under `key` (marked in use), or a new one. */
  private async connect(target: McpServerTarget, key: string): Promise<Connection> {
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([target.url, target.headerName, target.headerValue]))
      .digest('hex');
    const existing = this.connections.get(key);
    if (existing && existing.fingerprint === fingerprint) {
      existing.inUse += 1;
      // Most recently used last: the eviction below takes the first idle one.
      this.connections.delete(key);
      this.connections.set(key, existing);
      try {
        await existing.ready;
      } catch (error) {
        existing.inUse -= 1;
        throw error;
      }
      return existing;
    }
    // No await until the new connection is in the map: a concurrent use of the key must find it.
    if (existing) void this.drop(key);
    this.makeRoom();
    const client = new Client(
      { name: 'toolgate', version: TOOLGATE_VERSION },
      {
        versionNegotiation: { mode: 'auto' },
        listChanged: { tools: { autoRefresh: false, onChanged: () => this.onToolsChanged?.(target.appId) } },
      },
    );
    client.onerror = (error) => this.logger.debug(`app ${target.appId}: ${error.message}`);
    const headers: Record<string, string> =
      target.headerName && target.headerValue ? { [target.headerName]: target.headerValue } : {};
    // redirectPolicy 'follow' leaves redirects to boundedFetch, which follows none
    const transport = new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers },
      fetch: boundedFetch(() => this.dispatchers.forApp(target.appId)),
      redirectPolicy: 'follow',
    });
    const ready = client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    const connection: Connection = { appId: target.appId, fingerprint, client, ready, inUse: 1 };
    this.connections.set(key, connection);
    try {
      await ready;
    } catch (error) {
      if (this.connections.get(key) === connection) this.connections.delete(key);
      await client.close().catch(() => undefined);
      throw error;
    }
    return connection;
  }

  private makeRoom(): void {
    if (this.connections.size < MAX_CONNECTIONS) return;
    const idle = [...this.connections].find(([, connection]) => connection.inUse === 0);
    if (idle) void this.drop(idle[0]);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.connections.keys()].map((key) => this.drop(key)));
  }
}
