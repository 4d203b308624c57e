// The agent endpoint's common case without the MCP SDK: one modern-era (2026-07-28) `tools/list` or
// `tools/call` POST with no progress token, answered as JSON. The SDK turns each such request into a web
// Request, a Server, a transport and zod passes, which cost more API CPU than the rest of the call; here
// they cost a few property checks. Anything else, and any result these encoders cannot write exactly as
// the SDK does, still goes through the SDK. plain-mcp-requests.spec.ts holds both to the SDK's answers.
import type { IncomingHttpHeaders } from 'node:http';
import { type ProtocolError, classifyInboundRequest, isJsonContentType } from '@modelcontextprotocol/server';

/** The one revision answered here: its single requests carry their own envelope, so no session is needed. */
export const PLAIN_MCP_REVISION = '2026-07-28';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** Envelope and Toolgate keys; any other `_meta` key (a progress token, a log level, a trace) goes to the SDK. */
const PLAIN_META_KEYS = new Set([
  PROTOCOL_VERSION_KEY,
  CLIENT_INFO_KEY,
  CLIENT_CAPABILITIES_KEY,
  'toolgate/dialog_id',
  'toolgate/lead_id',
]);
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const LIST_PARAM_KEYS = new Set(['_meta']);
const CALL_PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
/** The keys of a tools/call result the SDK passes through as they are (its schema's own fields). */
const PLAIN_RESULT_KEYS = new Set(['_meta', 'content', 'structuredContent', 'isError']);
/** Envelopes (clientInfo, clientCapabilities) the SDK classified as a modern request; cleared when full. */
const MAX_KNOWN_ENVELOPES = 1000;
/** A longer envelope is classified every time, not remembered: 1,000 of them stay under 2 MiB. */
const MAX_KNOWN_ENVELOPE_LENGTH = 2048;
const knownEnvelopes = new Set<string>();
/** serverInfo's string fields, in the order the SDK's schema writes them. */
const SERVER_INFO_FIELDS = ['name', 'title', 'version', 'websiteUrl', 'description'] as const;

export type JsonRpcId = string | number;

export interface PlainCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta: Record<string, unknown>;
}

export type PlainMcpRequest =
  { method: 'tools/list'; id: JsonRpcId } | { method: 'tools/call'; id: JsonRpcId; params: PlainCallParams };

/** The server's identity as results carry it: exactly these two fields (the SDK writes no others for Toolgate). */
export interface ServerInfo {
  name: string;
  version: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function keysWithin(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

function keyCount(value: Record<string, unknown>): number {
  let count = 0;
  for (const _key in value) count += 1;
  return count;
}

/** A header's value with HTTP's optional whitespace around it removed; undefined when absent or repeated. */
function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.replace(/^[\t ]+|[\t ]+$/g, '') : undefined;
}

/**
 * The request when it is one this module answers, else undefined (the SDK answers it, errors included).
 * Narrow on purpose: what it accepts, the SDK would serve as a plain JSON exchange.
 */
export function plainMcpRequest(headers: IncomingHttpHeaders, body: unknown): PlainMcpRequest | undefined {
  const contentType = headers['content-type'];
  if (typeof contentType !== 'string' || !isJsonContentType(contentType)) return undefined;
  if (!isPlainObject(body) || !keysWithin(body, MESSAGE_KEYS) || body.jsonrpc !== '2.0') return undefined;
  const { id, method, params } = body;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (method !== 'tools/list' && method !== 'tools/call') return undefined;
  if (!isPlainObject(params) || !keysWithin(params, method === 'tools/list' ? LIST_PARAM_KEYS : CALL_PARAM_KEYS)) {
    return undefined;
  }
  const meta = params._meta;
  if (!isPlainObject(meta) || !keysWithin(meta, PLAIN_META_KEYS) || meta[PROTOCOL_VERSION_KEY] !== PLAIN_MCP_REVISION) {
    return undefined;
  }
  const protocolVersionHeader = headerValue(headers, 'mcp-protocol-version');
  const mcpMethodHeader = headerValue(headers, 'mcp-method');
  if (protocolVersionHeader !== PLAIN_MCP_REVISION || mcpMethodHeader !== method) return undefined;
  let mcpNameHeader: string | undefined;
  if (method === 'tools/call') {
    mcpNameHeader = headerValue(headers, 'mcp-name');
    const args = params.arguments;
    if (typeof params.name !== 'string' || mcpNameHeader !== params.name || mcpNameHeader.startsWith('=?')) {
      return undefined;
    }
    if (args !== undefined && !isPlainObject(args)) return undefined;
  }
  // The SDK's own era classifier validates the envelope (clientInfo, clientCapabilities) as it would. All else it
  // reads (headers, jsonrpc, id, method) is fixed by the checks above, so its verdict is remembered per envelope:
  // a client sends the same one with every request, and the classifier's zod passes cost more than the rest here.
  const envelope = JSON.stringify([meta[CLIENT_INFO_KEY], meta[CLIENT_CAPABILITIES_KEY]]);
  if (!knownEnvelopes.has(envelope)) {
    const headerFields = { protocolVersionHeader, mcpMethodHeader, mcpNameHeader };
    const route = classifyInboundRequest({ httpMethod: 'POST', ...headerFields, body });
    if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
    if (envelope.length <= MAX_KNOWN_ENVELOPE_LENGTH) {
      if (knownEnvelopes.size >= MAX_KNOWN_ENVELOPES) knownEnvelopes.clear();
      knownEnvelopes.add(envelope);
    }
  }
  return method === 'tools/list'
    ? { method, id: id as JsonRpcId }
    : { method, id: id as JsonRpcId, params: params as unknown as PlainCallParams };
}

/** A JSON-RPC answer carrying `resultJson`, the result already written as JSON. */
export function plainAnswer(id: JsonRpcId, resultJson: string): string {
  return `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** A thrown ProtocolError as the SDK answers it from a request handler (in band: HTTP 200). */
export function plainErrorAnswer(id: JsonRpcId, error: ProtocolError): string {
  const data = error.data === undefined ? {} : { data: error.data };
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...data } });
}

/** A tools/list result as JSON, with the fields the revision requires (the SDK's defaults: no caching). */
export function plainListResult(list: { tools: unknown[] }, serverInfo: ServerInfo): string {
  const _meta = { [SERVER_INFO_KEY]: serverInfo };
  return JSON.stringify({ ...list, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta });
}

function isPlainText(item: unknown): boolean {
  return isPlainObject(item) && item.type === 'text' && typeof item.text === 'string' && keyCount(item) === 2;
}

/** A result's serverInfo as the SDK's schema writes it, or undefined when it is not one of plain strings. */
function plainServerInfo(value: unknown): Record<string, string> | undefined {
  if (!isPlainObject(value) || typeof value.name !== 'string' || typeof value.version !== 'string') return undefined;
  const info: Record<string, string> = {};
  let seen = 0;
  for (const field of SERVER_INFO_FIELDS) {
    const text = value[field];
    if (text === undefined) continue;
    if (typeof text !== 'string') return undefined;
    info[field] = text;
    seen += 1;
  }
  return keyCount(value) === seen ? info : undefined;
}

/**
 * A tools/call result as JSON, as the SDK writes it: text content only, `structuredContent` an object,
 * `isError` a boolean, `_meta` kept with Toolgate's serverInfo added where it names none. Undefined
 * for anything else (images, annotations, extra fields): the SDK renders those.
 */
export function plainCallResult(result: unknown, serverInfo: ServerInfo): string | undefined {
  if (!isPlainObject(result) || !keysWithin(result, PLAIN_RESULT_KEYS)) return undefined;
  const { _meta: meta, content, structuredContent, isError } = result;
  if (!Array.isArray(content) || !content.every(isPlainText)) return undefined;
  if (
    structuredContent !== undefined &&
    (!isPlainObject(structuredContent) || Object.hasOwn(structuredContent, '__proto__'))
  ) {
    return undefined;
  }
  if (isError !== undefined && typeof isError !== 'boolean') return undefined;
  const written: Record<string, unknown> = {};
  if (meta !== undefined) {
    if (!isPlainObject(meta) || Object.hasOwn(meta, '__proto__')) return undefined;
    const own = meta[SERVER_INFO_KEY];
    const info = own === undefined ? serverInfo : plainServerInfo(own);
    if (!info) return undefined;
    written._meta = { ...meta, [SERVER_INFO_KEY]: info };
  }
  written.content = content;
  if (structuredContent !== undefined) written.structuredContent = structuredContent;
  if (isError !== undefined) written.isError = isError;
  written.resultType = 'complete';
  if (meta === undefined) written._meta = { [SERVER_INFO_KEY]: serverInfo };
  return JSON.stringify(written);
}
