import { errors as undiciErrors, request, type Dispatcher } from 'undici';
import { BlockedAddressError, urlHostRefusal } from '../../outbound-http/src/index.js';
import { excerptOf } from './response-excerpt.js';

/** A handler's answer is the tool result; more than this fails the attempt. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export type AttemptOutcome =
  'success' | 'http_status' | 'redirect' | 'timeout' | 'network' | 'response_too_large' | 'gone' | 'blocked_address';

export interface AttemptResult {
  outcome: AttemptOutcome;
  durationMs: number;
  httpStatus?: number;
  /** Why the attempt failed, in words a developer can act on. */
  error?: string;
  /** The full body of an answer (a failed one's says why it failed). */
  body?: Buffer;
  contentType?: string;
  /** A `content-encoding` other than identity: the body is compressed bytes (none is asked for). */
  contentEncoding?: string;
  excerpt?: string;
  retryAfter?: string;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivateNetwork: boolean;
}

/**
 * Makes one attempt: POST the exact body, follow no redirect, stop at the attempt timeout, read at
 * most 1 MiB, and classify the outcome (WEBHOOKS.md). Never throws for what the handler did.
 */
export async function sendWebhook(dispatcher: Dispatcher, webhook: WebhookRequest): Promise<AttemptResult> {
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  // An IP literal is judged here; a name is judged by the dispatcher's lookup (its refusal arrives as an error).
  const refusal = URL.canParse(webhook.url) ? urlHostRefusal(new URL(webhook.url), webhook.allowPrivateNetwork) : null;
  if (refusal) return { outcome: 'blocked_address', durationMs: duration(), error: refusal.message };
  // A timer cleared with the answer (AbortSignal.timeout's lives on until it fires: one per attempt in flight for 30 s).
  const timeout = new AbortController();
  const { signal } = timeout;
  const timer = setTimeout(
    () => timeout.abort(new DOMException('attempt timed out', 'TimeoutError')),
    webhook.timeoutMs,
  );
  try {
    const response = await request(webhook.url, {
      method: 'POST',
      headers: webhook.headers,
      body: webhook.body,
      dispatcher,
      signal,
      headersTimeout: webhook.timeoutMs,
      bodyTimeout: webhook.timeoutMs,
    });
    const status = response.statusCode;
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const declared = Number(header('content-length'));
    if (declared > MAX_RESPONSE_BYTES) {
      response.body.destroy();
      return {
        outcome: 'response_too_large',
        durationMs: duration(),
        httpStatus: status,
        error: `the response declares ${declared} bytes; at most 1 MiB is read`,
      };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES) {
        response.body.destroy();
        return {
          outcome: 'response_too_large',
          durationMs: duration(),
          httpStatus: status,
          error: 'the response is larger than 1 MiB',
        };
      }
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    const encoding = header('content-encoding');
    const base = {
      durationMs: duration(),
      httpStatus: status,
      excerpt: excerptOf(body),
      body,
      contentType: header('content-type'),
      contentEncoding: encoding && encoding.toLowerCase() !== 'identity' ? encoding : undefined,
    };
    // The outcome first: a key added after a leading spread takes V8's slow path.
    if (status >= 200 && status < 300) return { outcome: 'success', ...base };
    if (status >= 300 && status < 400) {
      return {
        outcome: 'redirect',
        error: `answered ${status} (redirect to ${header('location') ?? 'nowhere'}); redirects are not followed`,
        ...base,
      };
    }
    if (status === 410) return { outcome: 'gone', error: 'answered 410 Gone: no further attempts', ...base };
    return {
      outcome: 'http_status',
      error: `answered ${status}`,
      retryAfter: status === 429 || status === 503 ? header('retry-after') : undefined,
      ...base,
    };
  } catch (error) {
    return { durationMs: duration(), ...classifyError(error, signal, webhook.timeoutMs) };
  } finally {
    clearTimeout(timer);
  }
}

function classifyError(
  error: unknown,
  signal: AbortSignal,
  timeoutMs: number,
): Pick<AttemptResult, 'outcome' | 'error'> {
  if (error instanceof BlockedAddressError) return { outcome: 'blocked_address', error: error.message };
  if (
    signal.aborted ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
  ) {
    return { outcome: 'timeout', error: `no complete answer within ${timeoutMs / 1000} s` };
  }
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  return { outcome: 'network', error: `could not reach the handler${code ? ` (${code})` : ''}: ${message}` };
}
