// The pieces the floors of a call's own work share (bench/instant-floor-server.mjs, bench/queued-floor-*.mjs): each
// step of Toolgate's work at its cheapest, on pg, node:crypto and undici, without a framework.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

/**
 * The environment variable `name`, which the floor cannot run without.
 * @param {string} name
 */
export function requiredEnv(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/**
 * A pg pool on DATABASE_URL's schema (`?schema=`, as Toolgate's URL gives it). `settings`: more of Postgres's
 * settings for its sessions.
 * @param {string} databaseUrl
 * @param {{ max?: number, settings?: Record<string, string> }} [options]
 */
export function floorDatabase(databaseUrl, { max = 10, settings = {} } = {}) {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema') ?? 'public';
  url.searchParams.delete('schema');
  const options = Object.entries({ search_path: schema, ...settings }).map(([name, value]) => `-c ${name}=${value}`);
  return new pg.Pool({ connectionString: url.toString(), max, options: options.join(' ') });
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid: 'k1' })).toString('base64url');
const AAD = Buffer.from(HEADER, 'ascii');

/**
 * A body sealed as Toolgate stores it (compact JWE, AES-256-GCM with `key`, a 32-byte Buffer) and opened again.
 * @param {Buffer} key
 */
export function bodySealer(key) {
  return {
    /** @param {string} text */
    seal(text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(AAD);
      const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag().toString('base64url');
      return `${HEADER}..${iv.toString('base64url')}.${data.toString('base64url')}.${tag}`;
    },
    /** @param {string} sealed */
    open(sealed) {
      const [, , iv, data, tag] = sealed.split('.');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(AAD);
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The Standard Webhooks headers of `body` (HMAC-SHA256 with `secret`, a Buffer).
 * @param {Buffer} secret
 * @param {string} eventId
 * @param {string} body
 */
export function signedHeaders(secret, eventId, body, at = Date.now()) {
  const timestamp = Math.floor(at / 1000);
  const signature = createHmac('sha256', secret).update(`${eventId}.${timestamp}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${signature}`,
  };
}

/**
 * Writes of one kind grouped as Toolgate's statement batcher groups them (libs/persistence/src/statement-batcher.ts,
 * the cheapest grouping measured there): at most `maxInFlight` statements at once, a lone item at once, and the items
 * that arrived while statements ran together in the next one, up to `maxBatch`. With `another` ({waiting, afterMs},
 * as for the worker's claims and records in Toolgate), a statement beside a running one starts only for `waiting`
 * items, or once the oldest has waited `afterMs`. `add(item)` resolves to what `run(items)` resolved to for its
 * statement.
 * @template Item, Output
 * @param {(items: Item[]) => Promise<Output>} run
 * @param {{ maxInFlight?: number, maxBatch?: number, another?: { waiting: number, afterMs: number } }} [options]
 * @returns {(item: Item) => Promise<Output>}
 */
export function grouped(run, { maxInFlight = 2, maxBatch = 25, another } = {}) {
  /** @type {{ item: Item, since: number, resolve: (output: Output) => void, reject: (error: unknown) => void }[]} */
  const waiting = [];
  let inFlight = 0;
  /** @type {NodeJS.Timeout | null} */
  let timer = null;
  const mayStart = () => {
    if (waiting.length === 0) return false;
    if (inFlight === 0) return true;
    if (inFlight >= maxInFlight) return false;
    return !another || waiting.length >= another.waiting || Date.now() - waiting[0].since >= another.afterMs;
  };
  const next = () => {
    while (mayStart()) {
      const batch = waiting.splice(0, maxBatch);
      inFlight += 1;
      run(batch.map((w) => w.item))
        .then(
          (output) => batch.forEach((w) => w.resolve(output)),
          (error) => batch.forEach((w) => w.reject(error)),
        )
        .finally(() => {
          inFlight -= 1;
          next();
        });
    }
    if (another && waiting.length > 0 && inFlight < maxInFlight && !timer) {
      timer = setTimeout(
        () => {
          timer = null;
          next();
        },
        Math.max(0, waiting[0].since + another.afterMs - Date.now()),
      );
    }
  };
  return (item) =>
    new Promise((resolve, reject) => {
      waiting.push({ item, since: Date.now(), resolve, reject });
      next();
    });
}

/**
 * A statement for `size` items, built and named once per size (`text(size)`), as Toolgate's claims and records are.
 * @param {string} name
 * @param {(size: number) => string} text
 * @returns {(size: number) => { name: string, text: string }}
 */
export function perSize(name, text) {
  /** @type {Map<number, { name: string, text: string }>} */
  const made = new Map();
  return (size) => {
    let statement = made.get(size);
    if (!statement) made.set(size, (statement = { name: `${name}_${size}`, text: text(size) }));
    return statement;
  };
}

/**
 * `($o+1::a, $o+2::b), (…)`: `size` rows of parameters cast as `casts`, numbered from `offset + 1`.
 * @param {number} size
 * @param {string[]} casts
 */
export function valueRows(size, casts, offset = 0) {
  const rows = Array.from({ length: size }, (_, row) =>
    casts.map((cast, column) => `$${offset + row * casts.length + column + 1}::${cast}`).join(', '),
  );
  return `(${rows.join('), (')})`;
}

/**
 * Item `i`'s values of `items` (arrays of the same length), column by column: a statement's unnest arrays.
 * @param {ReadonlyArray<readonly unknown[]>} items
 * @param {number} count
 */
export function columnsOf(items, count) {
  return Array.from({ length: count }, (_, c) => items.map((item) => item[c]));
}

/**
 * A node:http request's body as text.
 * @param {http.IncomingMessage} req
 * @returns {Promise<string>}
 */
export function readBody(req) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (/** @type {Buffer} */ chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A JSON answer of node:http.
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
export function answerJson(res, status, body) {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length });
  res.end(bytes);
}

const knownTokens = new Set();

/**
 * What a floor does first with a tool call, as Toolgate's API must: the bearer token (Toolgate verifies a token
 * once, then finds it in memory: here every token counts as verified already), the JSON request, the one required
 * argument, and the webhook body (of an installation, instance and project the floor makes up). Answers 401 or 422
 * itself, and returns null then.
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 * @param {string} raw
 * @param {{ appId: string, tool: string }} floor
 */
export function newCall(req, res, raw, { appId, tool }) {
  const token = req.headers.authorization;
  if (!token) {
    answerJson(res, 401, { title: 'Unauthorized' });
    return null;
  }
  if (!knownTokens.has(token)) knownTokens.add(token);
  const agentId = (req.url ?? '').split('/')[3];
  const input = JSON.parse(raw);
  if (input.tool !== tool || typeof input.arguments?.customer_id !== 'string') {
    answerJson(res, 422, { title: 'Unprocessable' });
    return null;
  }
  const acceptedAt = new Date();
  const callId = `call_${randomUUID().replaceAll('-', '')}`;
  const eventId = randomUUID();
  const body = JSON.stringify({
    event_id: eventId,
    event_type: 'tool_call',
    timestamp: acceptedAt.toISOString(),
    app_id: appId,
    installation_id: 'inst_floor',
    project_id: 'proj_floor',
    agent_id: agentId,
    dialog_id: input.dialog_id,
    tool_name: 't',
    tool_instance_id: 'ti_floor',
    arguments: input.arguments,
    configuration: {},
    private_data: {},
  });
  return { agentId, input, acceptedAt, callId, eventId, body };
}

/**
 * A node:http server on PORT (0: any port) that hands each request and its body to `call` (a failure answers 500),
 * and prints `<name> listening on <port>` once it listens.
 * @param {string} name
 * @param {(req: http.IncomingMessage, res: http.ServerResponse, raw: string) => Promise<void>} call
 */
export function serveCalls(name, call) {
  const server = http.createServer((req, res) => {
    readBody(req)
      .then((raw) => call(req, res, raw))
      .catch((error) => {
        console.error(error);
        answerJson(res, 500, { title: 'Internal Server Error' });
      });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    console.log(`${name} listening on ${typeof address === 'object' ? address?.port : address}`);
  });
  return server;
}

/**
 * A finished call's values, as `finishedCallStore` takes them.
 * @typedef {[id: string, eventId: string, agentId: string, tool: string, dialogId: string, args: string,
 *   bodyEnc: string | null, acceptedAt: Date, result: string, finishedAt: Date]} FinishedCallValues
 */

const INSERT_FINISHED_CALLS = {
  name: 'floor_insert_calls',
  text: `WITH c AS (
    INSERT INTO tool_calls (id, event_id, app_id, installation_id, project_id, agent_id, tool_instance_id, tool_kind,
      tool_name, agent_tool_name, dialog_id, execution_mode, attempt_timeout_s, handler_url, arguments, body_enc,
      status, first_attempt_at, result, result_text, accepted_at, finished_at, updated_at)
    SELECT v.id, v.event_id, $3, 'inst_floor', 'proj_floor', v.agent_id, 'ti_floor', $13, 't', v.tool, v.dialog_id,
      'instant', 10, $4, v.arguments::jsonb, v.body_enc, 'succeeded', v.accepted_at, v.result::jsonb, v.result,
      v.accepted_at, v.finished_at, v.finished_at
    FROM unnest($1::text[], $2::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
      $10::timestamptz[], $11::text[], $12::timestamptz[])
      AS v(id, event_id, agent_id, tool, dialog_id, arguments, body_enc, accepted_at, result, finished_at)
    RETURNING id, first_attempt_at, finished_at)
  INSERT INTO tool_call_attempts (id, call_id, round, n, started_at, duration_ms, outcome, http_status)
  SELECT 'att_' || substr(c.id, 6), c.id, 1, 1, c.first_attempt_at,
    (extract(epoch FROM c.finished_at - c.first_attempt_at) * 1000)::int, 'success', $14::int FROM c`,
};

/**
 * Stores a finished call with its one attempt, as Toolgate stores a quick instant call: one statement for the call
 * and the attempt. The calls that arrive while a statement runs go in the next one, with one commit, grouped as
 * Toolgate's statement batcher groups them (arrays of their values, unnested). `toolKind`: 'http' (its attempt
 * answered 200) or 'mcp' (no HTTP status). The returned function takes a call's values, [id, eventId, agentId, tool,
 * dialogId, arguments (JSON text), bodyEnc, acceptedAt, result (JSON text), finishedAt], and resolves once its
 * statement committed.
 * @param {pg.Pool} db
 * @param {{ appId: string, handlerUrl: string, toolKind: 'http' | 'mcp' }} options
 */
export function finishedCallStore(db, { appId, handlerUrl, toolKind }) {
  const httpStatus = toolKind === 'http' ? 200 : null;
  return grouped((/** @type {FinishedCallValues[]} */ rows) => {
    const [ids, eventIds, agentIds, tools, dialogs, args, bodies, accepted, results, finished] = columnsOf(rows, 10);
    const values = [ids, eventIds, appId, handlerUrl, agentIds, tools, dialogs, args, bodies, accepted];
    return db.query({ ...INSERT_FINISHED_CALLS, values: [...values, results, finished, toolKind, httpStatus] });
  });
}
