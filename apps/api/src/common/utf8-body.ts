import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';

/**
 * The JSON body parser's `verify`: a UTF-8 body that is not valid UTF-8 is a 400 (the decoder
 * would quietly turn its bytes into U+FFFD and the request would go on with other text).
 */
export function refuseInvalidUtf8(_req: IncomingMessage, _res: unknown, body: Buffer, encoding: string | null): void {
  const utf8 = encoding === null || ['utf-8', 'utf8'].includes(encoding.toLowerCase());
  if (utf8 && !isUtf8(body)) {
    throw Object.assign(new Error('The body is not valid UTF-8: send JSON encoded as UTF-8.'), { status: 400, type: 'entity.not_utf8' });
  }
}
