/** How much of a response an attempt record keeps. */
export const RESPONSE_EXCERPT_BYTES = 4 * 1024;

/**
 * The first 4 KiB of an answer as text a database and a developer can read: UTF-8 text as it is,
 * and each byte that is not text (invalid UTF-8, NUL and other control bytes but tab and line
 * breaks) written `\xNN`. A character cut by the 4 KiB end is left out.
 */
export function excerptOf(body: Buffer, maxBytes = RESPONSE_EXCERPT_BYTES): string {
  let excerpt = '';
  let i = 0;
  while (i < body.length && i < maxBytes) {
    const length = utf8SequenceLength(body, i);
    if (length > 1) {
      if (i + length > maxBytes) break;
      excerpt += body.toString('utf8', i, i + length);
      i += length;
      continue;
    }
    const byte = body[i];
    excerpt +=
      length === 1 && !isControlByte(byte) ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
    i += 1;
  }
  return excerpt;
}

function isControlByte(byte: number): boolean {
  return (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) || byte === 0x7f;
}

/** The length of the well-formed UTF-8 sequence at `i` (RFC 3629), or 0 where there is none. */
function utf8SequenceLength(bytes: Buffer, i: number): number {
  const lead = bytes[i];
  if (lead < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0; // no overlong forms
    if (lead === 0xed) high = 0x9f; // no surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f; // nothing past U+10FFFF
  } else return 0;
  if (i + length > bytes.length) return 0;
  for (let k = 1; k < length; k += 1) {
    const byte = bytes[i + k];
    if (k === 1 ? byte < low || byte > high : byte < 0x80 || byte > 0xbf) return 0;
  }
  return length;
}
