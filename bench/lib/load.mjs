// How the bench sends its load: in parallel, or paced.

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();

/**
 * Runs `fn(i)` for i in [0, n) with `concurrency` loops.
 * @param {number} n
 * @param {number} concurrency
 * @param {(i: number) => Promise<unknown>} fn
 * @param {AbortSignal} [signal]
 */
export async function inParallel(n, concurrency, fn, signal) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        signal?.throwIfAborted();
        const i = next++;
        await fn(i);
      }
    }),
  );
}

/**
 * Runs `fn(i)` for i in [0, n), the i-th started `i / rate` seconds after the first, whether or not earlier ones ended.
 * @param {number} n
 * @param {number} rate
 * @param {(i: number) => Promise<unknown>} fn
 * @param {AbortSignal} [signal]
 */
export async function paced(n, rate, fn, signal) {
  const t0 = now();
  const running = [];
  for (let i = 0; i < n; i++) {
    signal?.throwIfAborted();
    const wait = t0 + (i * 1000) / rate - now();
    if (wait > 1) await sleep(wait);
    running.push(fn(i));
  }
  await Promise.all(running);
}
