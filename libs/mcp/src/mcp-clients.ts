import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ENV, type Env } from '../../config/src/index.js';
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
  /** MCP Apps put `ui` here: `{resourceUri, visibility: ["model", "app"]}`. */
  _meta?: Record<string, unknown>;
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
  transport: StreamableHTTPClientTransport;
  ready: Promise<void>;
  /** Uses in flight: a busy connection is never closed to make room. */
  inUse: number;
  /** Closes the connection once it has been idle for MCP_SESSION_IDLE_S. */
  idleTimer: NodeJS.Timeout | null;
  /** Out of the map (its app's settings changed): closed once its last use ends, never used again. */
  retired: boolean;
}

const CONNECT_TIMEOUT_MS = 10_000;
/** Sessions kept open per process; past it the least recently used idle one is closed. */
const MAX_CONNECTIONS = 1000;
/** How long the DELETE that ends an idle session may take before its connection is closed anyway. */
const GOODBYE_TIMEOUT_MS = 2000;

function connectionKey(target: McpServerTarget): string {
  return target.session === undefined ? target.appId : `${target.appId}\u0000${target.session}`;
}

/**
 * Toolgate as an MCP client: Streamable HTTP connections per app (so one failing server never
 * touches another) and, for calls, per agent of a project (a server's session state never crosses
 * tenants), the auth header on every request, SSRF-guarded through the app's own agent, answers
 * bounded (boundedFetch), re-initialized once when the server forgot the session. A session (and its
 * event stream) ends when it has been idle for MCP_SESSION_IDLE_S, and when its app's MCP settings change
 * (`endSessions`): nothing keeps talking to a server the app no longer names.
 */
@Injectable()
export class McpClients implements OnApplicationShutdown {
  private readonly logger = new Logger('McpClients');
  private readonly connections = new Map<string, Connection>();
  private readonly idleMs: number;
  /** Called when a server says its tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged?: (appId: string) => void;

  constructor(
    @Inject(AppDispatchers) private readonly dispatchers: AppDispatchers,
    @Inject(ENV) env: Env,
  ) {
    this.idleMs = env.MCP_SESSION_IDLE_S * 1000;
  }

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

  /**
   * Ends the sessions of an app (its MCP settings changed, it was switched off or deleted), or of every app (`null`:
   * a change may have been missed): idle ones at once, busy ones when their call ends. No goodbye (DELETE) is sent:
   * the server may no longer be the app's, and the header may have been cleared for a reason.
   */
  endSessions(appId: string | null): void {
    for (const [key, connection] of this.connections) {
      if (appId === null || connection.appId === appId) this.retire(key, connection);
    }
  }

  /** Takes the connection out of use; it is closed now if idle, else when its last use ends. */
  private retire(key: string, connection: Connection): void {
    if (this.connections.get(key) === connection) this.connections.delete(key);
    connection.retired = true;
    this.stopIdleTimer(connection);
    if (connection.inUse === 0) void this.close(connection, false);
  }

  private async close(connection: Connection, goodbye: boolean): Promise<void> {
    this.stopIdleTimer(connection);
    if (goodbye) {
      // MCP asks a client to end a session it no longer needs with a DELETE; a server that hangs is not waited for.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, GOODBYE_TIMEOUT_MS)));
      await Promise.race([connection.transport.terminateSession().catch(() => undefined), late]);
      clearTimeout(timer);
    }
    await connection.client.close().catch(() => undefined);
  }

  private stopIdleTimer(connection: Connection): void {
    if (connection.idleTimer) clearTimeout(connection.idleTimer);
    connection.idleTimer = null;
  }

  /** One use of the connection ended: an idle one starts its idle time, a retired one closes. */
  private release(key: string, connection: Connection): void {
    connection.inUse -= 1;
    if (connection.inUse > 0) return;
    if (connection.retired) {
      void this.close(connection, false);
      return;
    }
    this.stopIdleTimer(connection);
    connection.idleTimer = setTimeout(() => {
      connection.idleTimer = null;
      if (connection.inUse > 0 || this.connections.get(key) !== connection) return;
      this.connections.delete(key);
      void this.close(connection, true);
    }, this.idleMs);
    connection.idleTimer.unref();
  }

  private async withClient<T>(target: McpServerTarget, use: (client: Client) => Promise<T>): Promise<T> {
    const key = connectionKey(target);
    try {
      return await this.using(target, key, use);
    } catch (error) {
      // A server that restarted forgets our session: initialize once more and retry once.
      if (error instanceof SdkHttpError && (error.status === 404 || error.status === 400)) {
        const forgotten = this.connections.get(key);
        if (forgotten) this.retire(key, forgotten);
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
      this.release(key, connection);
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
      this.stopIdleTimer(existing);
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
    if (existing) this.retire(key, existing);
    this.makeRoom();
    const client = new Client(
      { name: 'toolgate', version: TOOLGATE_VERSION },
      {
        versionNegotiation: { mode: 'auto' },
        // A retired session's server is no longer the app's, or its tools are off: what it says is not heard.
        listChanged: {
          tools: { autoRefresh: false, onChanged: () => connection.retired || this.onToolsChanged?.(target.appId) },
        },
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
    const connection: Connection = {
      appId: target.appId,
      fingerprint,
      client,
      transport,
      ready,
      inUse: 1,
      idleTimer: null,
      retired: false,
    };
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
    if (!idle) return;
    this.connections.delete(idle[0]);
    void this.close(idle[1], true);
  }

  async onApplicationShutdown(): Promise<void> {
    const open = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(open.map((connection) => this.close(connection, false)));
  }
}
