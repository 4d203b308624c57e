import { pooledRandomBytes } from '../../secrets/src/index.js';

let lastMs = 0;
let sequence = 0;

/** UUIDv7's 16 bytes as 32 hex digits: the layout of `uuidv7`, without its dashes. */
function uuidv7Hex(now: number): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = pooledRandomBytes(2).readUInt16BE() & 0x1ff;
  } else {
    sequence += 1;
    if (sequence > 0xfff) {
      lastMs += 1;
      sequence = 0;
    }
  }
  const bytes = pooledRandomBytes(16);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  return bytes.toString('hex');
}

/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then a 12-bit counter that keeps ids made in the
 * same millisecond by this process in order, then random bits. Sorting ids sorts by creation.
 */
export function uuidv7(now: number = Date.now()): string {
  const hex = uuidv7Hex(now);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export type IdKind = 'app' | 'tool' | 'mcptool' | 'inst' | 'ti' | 'call' | 'att' | 'endpoint';

/** An opaque, time-ordered id such as `app_0197…`. */
export function newId(kind: IdKind): string {
  return `${kind}_${uuidv7Hex(Date.now())}`;
}
