// The benchmark's webhook handler: a plain node:http server in its own process.
//
//   any other path      200 {"ok":true} at once
//   /hang...            reads the request and never answers
//   /fail-twice...      503 to the first two requests of each X-Webhook-Event-Id, then 200 {"ok":true}
//   GET  /_stats?path=P counts per path, and for P the receive times (ms, epoch, sub-ms) per event id
//   POST /_reset        forgets every count and time (and answers any hanging request with 503)
//   GET  /_static       answers the bytes last stored with PUT /_static (a floor for "serve a list")
//
// Receive times are taken when the request's headers have been parsed, from a monotonic clock
// anchored at performance.timeOrigin, and are recorded for paths starting with /fail-twice.
// Prints "handler listening on <port>" when ready. PORT (default 0 = any free port).
import http from 'node:http';

const OK = Buffer.from('{"ok":true}');
const UNAVAILABLE = Buffer.from('{"error":"try again"}');
let staticBody = OK;

/** path -> number of requests @type {Map<string, number>} */
let counts = new Map();
/** path -> bytes received @type {Map<string, number>} */
let bytes = new Map();
/** path -> Map(event id -> receive times) @type {Map<string, Map<string, number[]>>} */
let times = new Map();
/** event id -> requests seen on /fail-twice @type {Map<string, number>} */
let failCounts = new Map();
/** requests held open by /hang @type {Set<http.ServerResponse>} */
let hanging = new Set();

const now = () => performance.timeOrigin + performance.now();

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {Buffer} body
 */
function send(res, status, body, type = 'application/json') {
  res.writeHead(status, { 'content-type': type, 'content-length': body.length });
  res.end(body);
}

const server = http.createServer((req, res) => {
  const receivedAt = now();
  const [path, query = ''] = (req.url ?? '/').split('?');

  if (path === '/_stats' && req.method === 'GET') {
    req.resume();
    const wanted = new URLSearchParams(query).get('path');
    const body = {
      counts: Object.fromEntries(counts),
      bytes: Object.fromEntries(bytes),
      hanging: hanging.size,
      events: wanted ? Object.fromEntries(times.get(wanted) ?? []) : undefined,
    };
    send(res, 200, Buffer.from(JSON.stringify(body)));
    return;
  }
  if (path === '/_reset' && req.method === 'POST') {
    req.resume();
    counts = new Map();
    bytes = new Map();
    times = new Map();
    failCounts = new Map();
    for (const held of hanging) if (!held.headersSent) send(held, 503, UNAVAILABLE);
    hanging = new Set();
    send(res, 200, OK);
    return;
  }
  if (path === '/_static') {
    if (req.method === 'PUT') {
      /** @type {Buffer[]} */
      const chunks = [];
      req.on('data', (/** @type {Buffer} */ c) => chunks.push(c));
      req.on('end', () => {
        staticBody = Buffer.concat(chunks);
        send(res, 200, OK);
      });
      return;
    }
    req.resume();
    send(res, 200, staticBody);
    return;
  }

  counts.set(path, (counts.get(path) ?? 0) + 1);
  const eventId = req.headers['x-webhook-event-id'];
  if (path.startsWith('/fail-twice') && typeof eventId === 'string') {
    let perPath = times.get(path);
    if (!perPath) times.set(path, (perPath = new Map()));
    const seen = perPath.get(eventId);
    if (seen) seen.push(receivedAt);
    else perPath.set(eventId, [receivedAt]);
  }
  let size = 0;
  req.on('data', (/** @type {Buffer} */ chunk) => (size += chunk.length));
  req.on('end', () => {
    bytes.set(path, (bytes.get(path) ?? 0) + size);
    if (path.startsWith('/hang')) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (path.startsWith('/fail-twice') && typeof eventId === 'string') {
      const n = (failCounts.get(eventId) ?? 0) + 1;
      failCounts.set(eventId, n);
      if (n <= 2) return send(res, 503, UNAVAILABLE);
    }
    send(res, 200, OK);
  });
});

server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.requestTimeout = 0;
server.maxRequestsPerSocket = 0;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`handler listening on ${typeof address === 'object' ? address?.port : address}`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  });
}
