import { randomBytes, randomFillSync } from 'node:crypto';

/** One refill's worth: 4 KiB, about 160 instant calls' ids and IVs. */
const POOL_BYTES = 4096;
/** Larger draws go straight to `randomBytes`. */
const MAX_POOLED_BYTES = 64;

const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * `n` cryptographically strong random bytes, as a Buffer of its own, drawn from a pool that one
 * `randomFillSync` refills 4 KiB at a time (Node's own `randomUUID` does the same); each byte is handed
 * out once. For the hot path's ids and IVs: a `randomBytes` call is a system call, about 8 µs here, and
 * an instant call needs seven. Keys and other long-lived secrets take `randomBytes` directly.
 */
export function pooledRandomBytes(n: number): Buffer {
  if (n > MAX_POOLED_BYTES) return randomBytes(n);
  if (offset + n > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + n));
  offset += n;
  return bytes;
}
