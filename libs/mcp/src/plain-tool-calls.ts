// A tools/call on an open legacy-era session, sent and read without the SDK transport's web streams.
import { STATUS_CODES } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import {
  type JSONRPCMessage,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  type StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { firstHeader } from '../../outbound-http/src/index.js';
import { type BoundedAnswer, type McpRequestInit, namesOnlyScope, readBounded } from './bounded-fetch.js';

/** The first protocol revision of the modern era: its requests carry an envelope only the SDK writes. */
const FIRST_MODERN_PROTOCOL_VERSION = '2026-07-28';

type SendOptions = Parameters<StreamableHTTPClientTransport['send']>[1];

/** What of the SDK's transport (version pinned in package.json) a plain send uses, as the transport itself does. */
interface TransportInternals {
  _url: URL;
  _commonHeaders(): Promise<Headers>;
  _abortController?: AbortController;
  _scheduleReconnection(options: Record<string, unknown>, attemptCount?: number): void;
}

/** Sends one request of the MCP client and answers with the server's answer, its body unread. */
export type McpRequester = (url: URL, init: McpRequestInit) => Promise<BoundedAnswer>;

/**
 * Makes the transport send each plain `tools/call` itself (one POST on the session, a JSON answer or an SSE
 * stream read from the Node body and parsed here), and everything else as before. The Client above is unchanged:
 * its ids, timeouts, cancellation, progress and result validation all apply. What it saves is the transport's
 * web-stream pipeline (fetch's Response, TextDecoderStream, the event-source parser) and the zod parse of each
 * message's envelope: bench/mcp-client-cost.mjs measured 1.5-1.8 ms of CPU per echo call through the SDK's
 * transport, 0.7-1.1 ms this way (its floor, a plain POST on the session: 0.4-0.5 ms).
 *
 * Plain: a single request on a legacy-era session (protocol before 2026-07-28: no envelope, no per-request
 * headers but its scope's), without `_meta` (no progress token) and not a resumption. Everything else goes to the SDK.
 */
export function sendToolCallsPlainly(transport: StreamableHTTPClientTransport, requester: McpRequester): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) =>
    isPlainToolCall(transport, message, options)
      ? sendPlainly(transport, requester, message as JSONRPCMessage, options)
      : send(message, options);
}

function isPlainToolCall(transport: StreamableHTTPClientTransport, message: unknown, options: SendOptions): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const request = message as { method?: unknown; id?: unknown; params?: { _meta?: unknown } };
  const version = transport.protocolVersion;
  return (
    request.method === 'tools/call' &&
    request.id !== undefined &&
    request.params?._meta === undefined &&
    options?.resumptionToken === undefined &&
    namesOnlyScope(options?.headers) &&
    version !== undefined &&
    version < FIRST_MODERN_PROTOCOL_VERSION
  );
}

/** The SDK transport's `_send` for one request, in its order: POST, then a JSON answer, an SSE stream or an error. */
async function sendPlainly(
  transport: StreamableHTTPClientTransport,
  requester: McpRequester,
  message: JSONRPCMessage,
  options: SendOptions,
): Promise<void> {
  const internals = transport as unknown as TransportInternals;
  try {
    const headers: Record<string, string> = {};
    (await internals._commonHeaders()).forEach((value, name) => (headers[name] = value));
    Object.assign(headers, options?.headers); // the request's scope (boundedRequest takes it out)
    headers['content-type'] = 'application/json';
    headers.accept = 'application/json, text/event-stream';
    const transportSignal = internals._abortController?.signal;
    const requestSignal = options?.requestSignal;
    const signal =
      requestSignal && transportSignal
        ? AbortSignal.any([transportSignal, requestSignal])
        : (requestSignal ?? transportSignal);
    const answer = await requester(internals._url, { method: 'POST', headers, body: JSON.stringify(message), signal });
    if (answer.status < 200 || answer.status > 299) {
      const text = await bodyText(answer).catch(() => null);
      throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
        status: answer.status,
        statusText: STATUS_CODES[answer.status] ?? '',
        text,
      });
    }
    if (answer.status === 202) {
      await bodyText(answer).catch(() => undefined);
      return;
    }
    const contentType = firstHeader(answer.headers, 'content-type') ?? null;
    const mediaType = contentType?.split(';')[0].trim().toLowerCase();
    if (mediaType === 'text/event-stream') {
      void readEvents(transport, answer, options);
    } else if (mediaType === 'application/json') {
      // As the SDK does with a JSON answer: every message checked first, and one it cannot take fails the send.
      const data: unknown = JSON.parse(await bodyText(answer));
      const messages = (Array.isArray(data) ? data : [data]).map(checkedMessage);
      for (const item of messages) transport.onmessage?.(item);
    } else {
      await bodyText(answer).catch(() => undefined);
      throw new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, `Unexpected content type: ${contentType}`, {
        contentType,
      });
    }
  } catch (error) {
    if (options?.requestSignal?.aborted !== true) transport.onerror?.(error as Error);
    throw error;
  }
}

async function bodyText(answer: BoundedAnswer): Promise<string> {
  const chunks: Buffer[] = [];
  await readBounded(answer, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function checkedMessage(message: unknown): JSONRPCMessage {
  if (!isJsonRpcMessage(message)) throw new Error(`not a JSON-RPC 2.0 message: ${JSON.stringify(message)}`);
  return message;
}

/** One message of an SSE stream to the Client, as the SDK's transport hands it on: one it cannot take is reported. */
function deliver(transport: StreamableHTTPClientTransport, message: unknown): boolean {
  try {
    const checked = checkedMessage(message);
    transport.onmessage?.(checked);
    return 'result' in checked || 'error' in checked;
  } catch (error) {
    transport.onerror?.(error as Error);
    return false;
  }
}

/** The shape the SDK's envelope schema checks: a request, a notification, a result or an error response. */
function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return false;
  const id = message.id;
  const hasId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
  const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (typeof message.method === 'string') {
    return (message.params === undefined || isObject(message.params)) && (id === undefined || hasId);
  }
  if (!hasId) return false;
  if ('result' in message) return isObject(message.result) && !('error' in message);
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  return isObject(error) && Number.isInteger(error?.code) && typeof error?.message === 'string';
}

/**
 * The SSE stream of a POST, as the SDK's transport reads it: each `message` event's data is a message; an event id
 * is a resumption token; a stream that ends (or breaks) after an event id but before the response is resumed by
 * the SDK's own reconnection.
 */
async function readEvents(
  transport: StreamableHTTPClientTransport,
  answer: BoundedAnswer,
  options: SendOptions,
): Promise<void> {
  const internals = transport as unknown as TransportInternals;
  const requestSignal = options?.requestSignal;
  const intentional = () => internals._abortController?.signal.aborted === true || requestSignal?.aborted === true;
  const events = new SseParser();
  let lastEventId: string | undefined;
  let receivedResponse = false;
  const resumeOrEnd = () => {
    if (lastEventId !== undefined && !receivedResponse && internals._abortController && !intentional()) {
      internals._scheduleReconnection(
        {
          resumptionToken: lastEventId,
          onresumptiontoken: options?.onresumptiontoken,
          requestSignal,
          onRequestStreamEnd: options?.onRequestStreamEnd,
        },
        0,
      );
    } else if (!intentional()) options?.onRequestStreamEnd?.();
  };
  const onChunk = (chunk: Buffer) => {
    // The response ends a POST's stream: what may follow it is read to the end, not parsed.
    if (receivedResponse) return;
    for (const event of events.push(chunk)) {
      if (event.id) {
        lastEventId = event.id;
        options?.onresumptiontoken?.(event.id);
      }
      if (!event.data || (event.event && event.event !== 'message')) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.data);
      } catch (error) {
        transport.onerror?.(error as Error);
        continue;
      }
      if (deliver(transport, parsed)) receivedResponse = true;
    }
  };
  try {
    await readBounded(answer, onChunk);
    resumeOrEnd();
  } catch (error) {
    // Answered, then cut as the request settled: the stream has served its purpose.
    if (intentional() || receivedResponse) return;
    transport.onerror?.(new Error(`SSE stream disconnected: ${String(error)}`));
    resumeOrEnd();
  }
}

interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Server-sent events (the event stream format): bytes in, events out, across chunk and character boundaries. */
export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private data: string[] = [];
  private event?: string;
  private id?: string;

  push(chunk: Buffer): SseEvent[] {
    this.buffer += this.decoder.write(chunk);
    const out: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const cr = this.buffer.indexOf('\r', start);
      const lf = this.buffer.indexOf('\n', start);
      if (cr === -1 && lf === -1) break;
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      // A CR at the very end may be the first half of a CRLF still in flight.
      if (end === cr && end === this.buffer.length - 1) break;
      const line = this.buffer.slice(start, end);
      start = end + (end === cr && this.buffer[end + 1] === '\n' ? 2 : 1);
      const event = this.line(line);
      if (event) out.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      // As the SDK's parser (eventsource-parser) dispatches: an event needs a data line; the id is the event's own.
      const event = this.data.length > 0 ? { id: this.id, event: this.event, data: this.data.join('\n') } : undefined;
      this.data = [];
      this.event = undefined;
      this.id = undefined;
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return undefined;
  }
}
