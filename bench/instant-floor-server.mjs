// The floor of an instant call's work, without Toolgate's framework: what bench/instant-floor.mjs measures Toolgate's
// API against. One node:http process does what the API must do for an instant call, each step at its cheapest:
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
  columnsOf,
  floorDatabase,
  grouped,
  newCall,
  serveCalls,
  signedHeaders,
} from './lib/floor-work.mjs';

const db = floorDatabase(process.env.DATABASE_URL);
const handlerUrl = new URL(process.env.HANDLER_URL);
const handler = new Pool(handlerUrl.origin, { connections: 50 });
const APP_ID = process.env.APP_ID;
const TOOL = process.env.TOOL;
const sealer = bodySealer(randomBytes(32));
const secret = randomBytes(24);

// The calls answered while a statement runs are stored together, in one statement and one commit, grouped as
// Toolgate's statement batcher groups them: arrays of their values, unnested.
const INSERT = {
  name: 'floor_insert_calls',
  text: `WITH c AS (
    INSERT INTO tool_calls (id, event_id, app_id, installation_id, project_id, agent_id, tool_instance_id, tool_kind,
      tool_name, agent_tool_name, dialog_id, execution_mode, attempt_timeout_s, handler_url, arguments, body_enc,
      status, first_attempt_at, result, result_text, accepted_at, finished_at, updated_at)
    SELECT v.id, v.event_id, $3, 'inst_floor', 'proj_floor', v.agent_id, 'ti_floor', 'http', 't', v.tool, v.dialog_id,
      'instant', 10, $4, v.arguments::jsonb, v.body_enc, 'succeeded', v.accepted_at, v.result::jsonb, v.result,
      v.accepted_at, v.finished_at, v.finished_at
    FROM unnest($1::text[], $2::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
      $10::timestamptz[], $11::text[], $12::timestamptz[])
      AS v(id, event_id, agent_id, tool, dialog_id, arguments, body_enc, accepted_at, result, finished_at)
    RETURNING id, first_attempt_at, finished_at)
  INSERT INTO tool_call_attempts (id, call_id, round, n, started_at, duration_ms, outcome, http_status)
  SELECT 'att_' || substr(c.id, 6), c.id, 1, 1, c.first_attempt_at,
    (extract(epoch FROM c.finished_at - c.first_attempt_at) * 1000)::int, 'success', 200 FROM c`,
};

/** Stores a call's row with those that arrived with it; resolves once their statement committed. */
const store = grouped((rows) => {
  const [ids, eventIds, agentIds, tools, dialogs, args, bodies, accepted, results, finished] = columnsOf(rows, 10);
  const values = [ids, eventIds, APP_ID, handlerUrl.href, agentIds, tools, dialogs, args, bodies, accepted];
  return db.query({ ...INSERT, values: [...values, results, finished] });
});

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
