/** How a kind of write is batched. */
export interface BatchOptions {
  /** How many statements of this kind may run at once. */
  maxInFlight: number;
  /** How many items one statement may carry. */
  maxBatch: number;
  /** Whether running the items of a failed batch alone may avoid its failure (then each runs again alone). */
  retryAlone: (error: unknown) => boolean;
}

interface Waiting<I, O> {
  item: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs writes of one kind together when they arrive together (group commit): an item that finds
 * `maxInFlight` statements running waits, and when one of them ends every waiting item (up to `maxBatch`)
 * goes as one statement. A lone item goes at once, alone, so a quiet process waits for nothing.
 *
 * A batch is one statement, so it commits or fails whole. When it failed for what running its items alone may
 * avoid (`retryAlone`: a value Postgres refused, a deadlock), each item runs again alone, so a refused value
 * fails only its own item. Any other failure (Postgres unreachable, a timeout) is every item's answer, as it
 * would have been alone.
 */
export class StatementBatcher<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private inFlight = 0;

  constructor(
    private readonly options: BatchOptions,
    private readonly runOne: (item: I) => Promise<O>,
    /** The outputs in the order of `items`; a batch always has 2 items or more. */
    private readonly runBatch: (items: I[]) => Promise<O[]>,
  ) {}

  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.inFlight < this.options.maxInFlight) this.next();
    });
  }

  private next(): void {
    const batch = this.waiting.splice(0, this.options.maxBatch);
    if (batch.length === 0) return;
    this.inFlight += 1;
    void this.settle(batch).finally(() => {
      this.inFlight -= 1;
      this.next();
    });
  }

  private async settle(batch: Waiting<I, O>[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const outputs = await this.runBatch(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(outputs[i]));
        return;
      } catch (error) {
        if (!this.options.retryAlone(error)) {
          for (const w of batch) w.reject(error);
          return;
        }
      }
    }
    await Promise.all(batch.map((w) => this.runOne(w.item).then(w.resolve, w.reject)));
  }
}
