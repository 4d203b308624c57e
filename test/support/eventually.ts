/**
 * Runs `check` until it stops throwing (an `expect` inside it passes) and gives what it returned;
 * past `timeoutMs` the last failure is thrown, so the test reports the assertion that never held.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 15_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
