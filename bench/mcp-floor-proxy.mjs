// The floor of an MCP `tools/call`'s work through a proxy, without Toolgate's framework: what row 5 measures Toolgate's
// agent MCP endpoint against, beside the direct call. One node:http process relays each MCP request of its client to
// the MCP server at MCP_URL, on the client's own session (its session and protocol headers go through), and answers
// as the server did. For a `tools/call` it reads the whole answer (JSON or an event stream), takes the call's result
// from it, stores the call with its attempt in one statement (as Toolgate stores a quick call: the statement of
// bench/instant-floor-server.mjs, grouped the same way), and answers once that statement committed.
// Not done here, and done by Toolgate: the agent's token, the toolset's checks, the arguments checked against the
// tool's schema, Toolgate's own session with the app's server, the result re-encoded for the agent, the answer's
// bounded reading, metrics, request ids.
// Env: PORT (0: any), DATABASE_URL (with ?schema=), MCP_URL, APP_ID. Prints "mcp floor listening on <port>".
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { finishedCallStore, floorDatabase, requiredEnv, serveCalls } from './lib/floor-work.mjs';

const db = floorDatabase(requiredEnv('DATABASE_URL'));
const upstream = new URL(requiredEnv('MCP_URL'));
const server = new Pool(upstream.origin, { connections: 10 });
const store = finishedCallStore(db, { appId: requiredEnv('APP_ID'), handlerUrl: upstream.href, toolKind: 'mcp' });

const ASKED = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];
const ANSWERED = ['content-type', 'cache-control', 'mcp-session-id', 'mcp-protocol-version'];

/**
 * The headers of `headers` named in `names`.
 * @param {import('node:http').IncomingHttpHeaders} headers
 * @param {string[]} names
 */
function picked(headers, names) {
  /** @type {Record<string, string | string[]>} */
  const out = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The JSON-RPC message of `id` in an answer: a JSON body, or an event stream's `data:` lines.
 * @param {string | number} id
 * @param {string} text
 * @param {string | string[] | undefined} contentType
 */
function answerTo(id, text, contentType) {
  if (typeof contentType !== 'string' || !contentType.startsWith('text/event-stream')) return JSON.parse(text);
  for (const line of text.split('\n')) {
    const data = line.startsWith('data:') ? line.slice(5).trim() : '';
    if (!data) continue; // another field, or an event without data (a stream's priming event)
    const message = JSON.parse(data);
    if (message.id === id) return message;
  }
  throw new Error(`no answer to request ${id} in the event stream`);
}

/**
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {string} raw
 */
async function relay(req, res, raw) {
  const message = raw ? JSON.parse(raw) : undefined;
  const acceptedAt = new Date();
  const answer = await server.request({
    method: req.method ?? 'GET',
    path: upstream.pathname,
    headers: picked(req.headers, ASKED),
    body: raw || undefined,
  });
  const headers = picked(answer.headers, ANSWERED);
  if (message?.method !== 'tools/call') {
    res.writeHead(answer.statusCode, headers);
    answer.body.pipe(res);
    return;
  }
  const text = await answer.body.text();
  const { result } = answerTo(message.id, text, answer.headers['content-type']);
  const callId = `call_${randomUUID().replaceAll('-', '')}`;
  const { name, arguments: args } = message.params;
  /** @type {{ text?: string }[]} */
  const content = result?.content ?? [];
  const resultText = content.map((part) => part.text ?? '').join('\n');
  const argsJson = JSON.stringify(args ?? {});
  const resultJson = JSON.stringify(resultText);
  await store([callId, randomUUID(), 'agent_floor', name, 'mcp', argsJson, null, acceptedAt, resultJson, new Date()]);
  res.writeHead(answer.statusCode, headers);
  res.end(text);
}

serveCalls('mcp floor', relay);
