// The fetch Toolgate's MCP client uses: bounded like a handler's answer, no redirects, cut when its request ends.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FetchLike } from '@modelcontextprotocol/client';
import { Response, fetch as undiciFetch, type Dispatcher } from 'undici';

/** An MCP server's answer (a page, a result, an error body, one SSE stream) is at most this. */
export const MAX_MCP_ANSWER_BYTES = 1024 * 1024;

export class ResponseTooLargeError extends Error {
  readonly code = 'RESPONSE_TOO_LARGE';

  constructor(declared?: number) {
    super(
      declared
        ? `the MCP server's answer declares ${declared} bytes; at most 1 MiB is read`
        : "the MCP server's answer is larger than 1 MiB",
    );
    this.name = 'ResponseTooLargeError';
  }
}

export class McpRedirectError extends Error {
  readonly code = 'REDIRECT';

  constructor(status: number, location: string | null) {
    super(
      `the MCP server answered ${status} (redirect to ${location ?? 'nowhere'}); redirects are not followed: ` +
        "set the app's MCP URL to the server's own address",
    );
    this.name = 'McpRedirectError';
  }
}

/**
 * One client request (a tool call, a tools/list walk): the streams its responses opened are cut
 * when it ends, and an answer over 1 MiB fails it at once (the SDK would wait for its timeout).
 */
export class McpRequestScope {
  private readonly abort = new AbortController();
  private readonly open = new Set<() => void>();
  private closed = false;
  /** Why the request failed inside the transport, when it did. */
  failure: Error | null = null;

  /** Aborts when the transport failed the request: give it to the SDK as the request's signal. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.abort.abort(error);
  }

  /** Registers a stream to cut at the end; returns how to unregister it. */
  track(cut: () => void): () => void {
    if (this.closed) {
      cut();
      return () => undefined;
    }
    this.open.add(cut);
    return () => this.open.delete(cut);
  }

  /** The request ended (answered, failed, timed out): whatever is still streaming is cut. */
  close(): void {
    this.closed = true;
    for (const cut of this.open) cut();
    this.open.clear();
  }
}

const scopes = new AsyncLocalStorage<McpRequestScope>();

/** Runs one client request in a fresh scope, closing it (cutting its streams) when it settles. */
export async function withRequestScope<T>(run: (scope: McpRequestScope) => Promise<T>): Promise<T> {
  const scope = new McpRequestScope();
  try {
    return await scopes.run(scope, () => run(scope));
  } catch (error) {
    throw scope.failure ?? error;
  } finally {
    scope.close();
  }
}

/** `response` with its body counted: over `limit` bytes it errors (and fails the scope's request). */
function bounded(response: Response, limit: number, scope: McpRequestScope | undefined): Response {
  if (!response.body) return response;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let size = 0;
  let done = false;
  let untrack = () => false as unknown;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      untrack =
        scope?.track(() => {
          if (done) return;
          done = true;
          controller.error(new Error('the MCP request ended: its stream was cut'));
          void reader.cancel().catch(() => undefined);
        }) ?? untrack;
    },
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (!done) controller.error(error);
        done = true;
        untrack();
        return;
      }
      if (done) return;
      if (chunk.done) {
        done = true;
        untrack();
        controller.close();
        return;
      }
      size += chunk.value.byteLength;
      if (size > limit) {
        done = true;
        untrack();
        const error = new ResponseTooLargeError();
        scope?.fail(error);
        controller.error(error);
        await reader.cancel(error).catch(() => undefined);
        return;
      }
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      done = true;
      untrack();
      return reader.cancel(reason);
    },
  });
  return new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * A `fetch` for the SDK's StreamableHTTPClientTransport: through `dispatcher()` (the app's
 * SSRF-guarded agent), never following a redirect, each answer at most 1 MiB, and the streams of
 * a request cut when the request ends (see withRequestScope).
 */
export function boundedFetch(dispatcher: () => Dispatcher, limit = MAX_MCP_ANSWER_BYTES): FetchLike {
  return async (url: string | URL, init?: RequestInit) => {
    const scope = scopes.getStore();
    const response = await undiciFetch(url, {
      ...(init as object),
      redirect: 'manual',
      dispatcher: dispatcher(),
    } as never);
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw new McpRedirectError(response.status, response.headers.get('location'));
    }
    const declared = Number(response.headers.get('content-length'));
    if (declared > limit) {
      await response.body?.cancel().catch(() => undefined);
      const error = new ResponseTooLargeError(declared);
      scope?.fail(error);
      throw error;
    }
    return bounded(response, limit, scope);
  };
}
