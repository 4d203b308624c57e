// The floor of a queued call's work, its accepting half (bench/queued-floor-deliver.mjs is the other): what Toolgate's
// API must do for a `background` call, each step at its cheapest, without a framework. One node:http process reads
// and parses the JSON request, finds the token in memory (Toolgate verifies a token once, then remembers it), checks
// the one required argument, builds the webhook body, encrypts it (AES-256-GCM, as it is stored), stores the call
// queued (a named prepared statement on pg, the same tables and indexes; the calls that arrive while a statement
// runs go in the next one, with one commit, grouped as Toolgate groups them), then queues its delivery job (BullMQ,
// one addBulk per group), and answers 202.
// Not done here, and done by Toolgate: JWT verification on a token's first use, the toolset's checks, idempotency
// keys, the per-app cap, making a first attempt itself, metrics, request ids.
// Env: PORT (0: any), DATABASE_URL (with ?schema=), REDIS_URL, FLOOR_QUEUE, FLOOR_PREFIX, FLOOR_KEY (32 bytes,
// base64), HANDLER_URL, APP_ID, TOOL. Prints "queued floor listening on <port>".
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import {
  answerJson as answer,
  bodySealer,
  columnsOf,
  floorDatabase,
  grouped,
  newCall,
  requiredEnv,
  serveCalls,
} from './lib/floor-work.mjs';

const HANDLER_URL = requiredEnv('HANDLER_URL');
const APP_ID = requiredEnv('APP_ID');
const TOOL = requiredEnv('TOOL');
const db = floorDatabase(requiredEnv('DATABASE_URL'));
const connection = new Redis(requiredEnv('REDIS_URL'), { maxRetriesPerRequest: null });
const queue = new Queue(requiredEnv('FLOOR_QUEUE'), { connection, prefix: requiredEnv('FLOOR_PREFIX') });
const sealer = bodySealer(Buffer.from(requiredEnv('FLOOR_KEY'), 'base64'));

// Due a day later: Toolgate's reconciler, running on the same schema, re-queues overdue calls for its own worker,
// which would cancel these (their installation is not one of Toolgate's).
const INSERT = {
  name: 'floor_insert_queued_calls',
  text: `INSERT INTO tool_calls (id, event_id, app_id, installation_id, project_id, agent_id, tool_instance_id,
      tool_kind, tool_name, agent_tool_name, dialog_id, execution_mode, attempt_timeout_s, handler_url, arguments,
      body_enc, status, next_attempt_n, next_attempt_at, accepted_at, updated_at)
    SELECT v.id, v.event_id, $2, 'inst_floor', 'proj_floor', v.agent_id, 'ti_floor', 'http', 't', v.tool,
      v.dialog_id, 'background', 10, $3, v.arguments::jsonb, v.body_enc, 'queued', 1,
      v.accepted_at + interval '1 day', v.accepted_at, v.accepted_at
    FROM unnest($1::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
      $10::timestamptz[]) AS v(id, event_id, agent_id, tool, dialog_id, arguments, body_enc, accepted_at)`,
};

/**
 * A queued call's values, as `store` takes them.
 * @typedef {[id: string, eventId: string, agentId: string, tool: string, dialogId: string, args: string,
 *   bodyEnc: string, acceptedAt: Date]} QueuedCallValues
 */

/** Stores a queued call with those that arrived with it; resolves once their statement committed. */
const store = grouped((/** @type {QueuedCallValues[]} */ rows) => {
  const [ids, eventIds, agentIds, tools, dialogs, args, bodies, accepted] = columnsOf(rows, 8);
  const values = [ids, APP_ID, HANDLER_URL, eventIds, agentIds, tools, dialogs, args, bodies, accepted];
  return db.query({ ...INSERT, values });
});

/** Queues the delivery of a stored call with those that arrived with it, in one addBulk. */
const enqueue = grouped((/** @type {string[]} */ ids) =>
  queue.addBulk(
    ids.map((id) => ({
      name: 'deliver',
      data: { id },
      opts: { jobId: id, removeOnComplete: true, removeOnFail: true },
    })),
  ),
);

/**
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {string} raw
 */
async function call(req, res, raw) {
  const accepted = newCall(req, res, raw, { appId: APP_ID, tool: TOOL });
  if (!accepted) return;
  const { agentId, input, acceptedAt, callId, eventId, body } = accepted;
  const args = JSON.stringify(input.arguments);
  await store([callId, eventId, agentId, input.tool, input.dialog_id, args, sealer.seal(body), acceptedAt]);
  await enqueue(callId);
  answer(res, 202, { call_id: callId, status: 'queued' });
}

serveCalls('queued floor', call);
