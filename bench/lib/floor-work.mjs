// The pieces the floors of a call's own work share (bench/instant-floor-server.mjs, bench/queued-floor-*.mjs): each
// step of Toolgate's work at its cheapest, on pg, node:crypto and undici, without a framework.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import pg from 'pg';

/** A pg pool on DATABASE_URL's schema (`?schema=`, as Toolgate's URL gives it). */
export function floorDatabase(databaseUrl, max = 10) {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema') ?? 'public';
  url.searchParams.delete('schema');
  return new pg.Pool({ connectionString: url.toString(), max, options: `-c search_path=${schema}` });
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid: 'k1' })).toString('base64url');
const AAD = Buffer.from(HEADER, 'ascii');

/**
 * A body sealed as Toolgate stores it (compact JWE, AES-256-GCM with `key`, a 32-byte Buffer) and opened again.
 */
export function bodySealer(key) {
  return {
    seal(text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(AAD);
      const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag().toString('base64url');
      return `${HEADER}..${iv.toString('base64url')}.${data.toString('base64url')}.${tag}`;
    },
    open(sealed) {
      const [, , iv, data, tag] = sealed.split('.');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(AAD);
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** The Standard Webhooks headers of `body` (HMAC-SHA256 with `secret`, a Buffer). */
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
 * Items of one turn of the event loop handled together, as Toolgate's statement batcher does: `add(item)` resolves
 * to what `run(items)` resolves to, once for all of them.
 */
export function perTurn(run) {
  let pending = null;
  return (item) => {
    if (!pending) {
      const batch = { items: [], done: null };
      batch.done = new Promise((resolve, reject) =>
        setImmediate(() => {
          pending = null;
          run(batch.items).then(resolve, reject);
        }),
      );
      pending = batch;
    }
    pending.items.push(item);
    return pending.done;
  };
}

/** Item `i`'s values of `items` (arrays of the same length), column by column: a statement's unnest arrays. */
export function columnsOf(items, count) {
  return Array.from({ length: count }, (_, c) => items.map((item) => item[c]));
}

/** A node:http request's body as text. */
export function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A JSON answer of node:http. */
export function answerJson(res, status, body) {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length });
  res.end(bytes);
}
