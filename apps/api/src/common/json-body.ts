import { isUtf8 } from 'node:buffer';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

const LIMIT = 1024 * 1024;
const INFLATE = { gzip: gunzipSync, 'x-gzip': gunzipSync, deflate: inflateSync, br: brotliDecompressSync } as const;

/** A refusal shaped like body-parser's errors (`type` names it), which Nest maps to an HttpException. */
function refusal(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}

/** The body's text: UTF-8 that is not valid UTF-8 is a 400 (a decoder would quietly turn its bytes into U+FFFD). */
function decode(body: Buffer, contentType: string | undefined): string {
  const charset =
    /;\s*charset=("?)([^";]+)\1/i
      .exec(contentType ?? '')?.[2]
      .trim()
      .toLowerCase() ?? 'utf-8';
  if (charset === 'utf-8' || charset === 'utf8') {
    if (!isUtf8(body))
      throw refusal(400, 'entity.not_utf8', 'The body is not valid UTF-8: send JSON encoded as UTF-8.');
    return body.toString('utf8');
  }
  try {
    if (!charset.startsWith('utf-')) throw new RangeError(charset);
    return new TextDecoder(charset).decode(body);
  } catch {
    throw refusal(
      415,
      'charset.unsupported',
      `Unsupported charset "${charset.toUpperCase()}": send JSON encoded as UTF-8.`,
    );
  }
}

/** The body as sent before a `Content-Encoding` (gzip, deflate, br), at most 1 MiB of it. */
function inflate(body: Buffer, contentEncoding: string | undefined): Buffer {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return body;
  const decompress = INFLATE[encoding as keyof typeof INFLATE];
  if (!decompress)
    throw refusal(
      415,
      'encoding.unsupported',
      `Unsupported Content-Encoding "${encoding}": send gzip, deflate, br or none.`,
    );
  try {
    return decompress(body, { maxOutputLength: LIMIT });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw refusal(413, 'entity.too.large', 'The body is larger than 1 MiB.');
    throw refusal(400, 'encoding.failed', `The body is not valid ${encoding} data.`);
  }
}

/** An object or array (as body-parser's strict mode); an empty body is `{}`. */
export function parseJsonBody(raw: Buffer, headers: { 'content-type'?: string; 'content-encoding'?: string }): unknown {
  const body = inflate(raw, headers['content-encoding']);
  if (body.length === 0) return {};
  const text = decode(body, headers['content-type']);
  if (!/^[\s]*[{[]/.test(text)) throw refusal(400, 'entity.parse.failed', 'The body is not a JSON object or array.');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw refusal(400, 'entity.parse.failed', (error as Error).message);
  }
}

/**
 * Bodies as Express' JSON parser took them: `application/json` up to 1 MiB (also once inflated) is
 * parsed; any other content type is left unread (the route then says a JSON body is needed), never a 415.
 */
export function acceptJsonBodiesOnly(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer, request.headers));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
}
