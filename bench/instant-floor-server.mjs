// The floor of an instant call's work, without Toolgate's framework: what rows 1 and 2 measure Toolgate's API against.
// One node:http process does what the API must do for an instant call, each step at its cheapest:
// read and parse the JSON request, find the token in memory (Toolgate verifies a token once, then remembers it),
// check the one required argument, build the webhook body, encrypt it (AES-256-GCM, as it is stored), sign it
// (Standard Webhooks: HMAC-SHA256), POST it to the handler (undici), store the call with its attempt in one statement
// (a named prepared statement on pg, the same tables and indexes; the calls that arrive while a statement runs go in
// the next one, with one commit, grouped as Toolgate groups them), and answer 200 with the result.
// Not done here, and done by Toolgate: JWT verification on a token's first use, the toolset's checks (enabled,
// refusals), idempotency keys, bounded reading of the handler's answer, metrics, request ids.
// Env: PORT (0: any), DATABASE_URL (with ?schema=), HANDLER_URL, APP_ID, TOOL. Prints "floor listening on <port>".
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import {
  answerJson as answer,
  bodySealer,
  finishedCallStore,
  floorDatabase,
  newCall,
  requiredEnv,
  serveCalls,
  signedHeaders,
} from './lib/floor-work.mjs';

const db = floorDatabase(requiredEnv('DATABASE_URL'));
const handlerUrl = new URL(requiredEnv('HANDLER_URL'));
const handler = new Pool(handlerUrl.origin, { connections: 50 });
const APP_ID = requiredEnv('APP_ID');
const TOOL = requiredEnv('TOOL');
const sealer = bodySealer(randomBytes(32));
const secret = randomBytes(24);

// The calls answered while a statement runs are stored together, in one statement and one commit.
const store = finishedCallStore(db, { appId: APP_ID, handlerUrl: handlerUrl.href, toolKind: 'http' });

/**
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {string} raw
 */
async function call(req, res, raw) {
  const accepted = newCall(req, res, raw, { appId: APP_ID, tool: TOOL });
  if (!accepted) return;
  const { agentId, input, acceptedAt, callId, eventId, body } = accepted;
  const bodyEnc = sealer.seal(body);
  const headers = signedHeaders(secret, eventId, body, acceptedAt.getTime());
  const sent = await handler.request({ method: 'POST', path: handlerUrl.pathname, headers, body });
  const text = await sent.body.text();
  const result = JSON.parse(text);
  const finishedAt = new Date();
  await store([
    callId,
    eventId,
    agentId,
    input.tool,
    input.dialog_id,
    JSON.stringify(input.arguments),
    bodyEnc,
    acceptedAt,
    text,
    finishedAt,
  ]);
  answer(res, 200, { call_id: callId, status: 'succeeded', result, result_text: text });
}

serveCalls('floor', call);
