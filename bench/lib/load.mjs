// How the bench sends its load: in parallel, or paced.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();

/** Runs `fn(i)` for i in [0, n) with `concurrency` loops. */
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

/** Runs `fn(i)` for i in [0, n), the i-th started `i / rate` seconds after the first, whether or not earlier ones ended. */
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
