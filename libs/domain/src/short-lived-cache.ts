/**
 * Values a process reuses for `ttlMs` after it read them (a failed read is not kept), so that a setting read on every
 * call costs a map lookup; another process's change shows within `ttlMs`. At `maxEntries` it starts afresh.
 */
export class ShortLivedCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, read: () => Promise<V>): Promise<V> {
    const now = performance.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    const value = read().catch((error: unknown) => {
      this.entries.delete(key);
      throw error;
    });
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: now + this.ttlMs });
    return value;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
