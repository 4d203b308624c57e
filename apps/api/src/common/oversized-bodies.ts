import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** What the API reads (and drops) of a refused body after answering 413, before it cuts the connection. */
export const OVERSIZED_BODY_DRAIN_BYTES = 64 * 1024 * 1024;
/** How long a client still sending a refused body is given before the connection is cut. */
const DRAIN_TIME_MS = 30_000;

/**
 * A body over the limit is answered 413 while the client may still be sending it. Fastify asks Node to close the
 * connection then, which resets it under a client still writing: EPIPE or ECONNRESET, and a client that had not yet
 * read the answer loses it. Kept alive instead, Node reads the rest of the body and drops it, so the client reads the
 * 413 and ends its request; past a bound in bytes or time the connection is cut.
 */
export function drainOversizedBodies(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 413 && !request.raw.complete) {
      reply.removeHeader('connection');
      boundTheDrain(request.raw);
    }
    done(null, payload);
  });
}

function boundTheDrain(body: IncomingMessage): void {
  let drained = 0;
  const cut = () => {
    stop();
    body.socket.destroy();
  };
  const count = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > OVERSIZED_BODY_DRAIN_BYTES) cut();
  };
  const timer = setTimeout(cut, DRAIN_TIME_MS).unref();
  const stop = () => {
    clearTimeout(timer);
    body.off('data', count);
    body.off('end', stop);
    body.off('close', stop);
  };
  // Listening is also what reads the body on: each chunk is counted and dropped.
  body.on('data', count);
  body.once('end', stop);
  body.once('close', stop);
}
