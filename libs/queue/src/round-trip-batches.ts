interface Waiting<I> {
  item: I;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Runs items in batches, one batch in flight at a time, as ioredis's auto-pipelining does but without its pipeline
 * per batch: an item handed in while nothing runs goes on the next tick, with whatever came in that tick (the
 * callers one answer resumed: a batched INSERT's calls); items handed in while a batch runs wait for it, then go
 * together. A lone item goes alone (`runOne`), two or more in one go (`runMany`), whose failure is each of its
 * items' failure.
 */
export class RoundTripBatches<I> {
  private waiting: Waiting<I>[] = [];
  private running = false;

  constructor(
    private readonly runOne: (item: I) => Promise<unknown>,
    private readonly runMany: (items: I[]) => Promise<unknown>,
  ) {}

  run(item: I): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const first = this.waiting.push({ item, resolve, reject }) === 1;
      if (first && !this.running) process.nextTick(() => void this.next());
    });
  }

  private async next(): Promise<void> {
    if (this.running || this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.running = true;
    try {
      if (batch.length === 1) await this.runOne(batch[0].item);
      else await this.runMany(batch.map((waiting) => waiting.item));
      for (const waiting of batch) waiting.resolve();
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      this.running = false;
    }
    void this.next();
  }
}
