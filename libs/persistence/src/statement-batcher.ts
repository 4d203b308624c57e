/** How a kind of write is batched. */
export interface BatchOptions<I> {
  /** How many statements of this kind may run at once. */
  maxInFlight: number;
  /**
   * When a statement starts while another of this kind runs (default: at once): once `waiting` items wait, or the
   * oldest has waited `afterMs`. Where items arrive spread out this makes fewer, fuller statements, and a slow
   * statement still does not hold the items behind it.
   */
  another?: { waiting: number; afterMs: number };
  /** How many items one statement may carry. */
  maxBatch: number;
  /** The row an item writes: one statement never carries two items of one key (the second waits for the next). */
  key: (item: I) => unknown;
  /** How long an item may wait for a statement; past it, it fails with `waitedTooLong()`. */
  maxWaitMs: number;
  waitedTooLong: () => Error;
  /** Whether running the items of a failed batch alone may avoid its failure (then each runs again alone). */
  retryAlone: (error: unknown) => boolean;
  /** Whether a statement's failure is one every waiting item would meet too (Postgres away): they fail with it. */
  failsAll: (error: unknown) => boolean;
}

interface Waiting<I, O> {
  item: I;
  since: number;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs writes of one kind together when they arrive together (group commit): an item that finds
 * `maxInFlight` statements running waits, and when one of them ends the waiting items (up to `maxBatch`, one
 * per key) go as one statement. A lone item goes at once, alone, so a quiet process waits for nothing. An item
 * waits at most `maxWaitMs`, and the waiting items fail at once with a statement that failed for what they would
 * meet too (`failsAll`: Postgres away): a Postgres that stopped answering fails requests, it does not queue them.
 *
 * A batch is one statement, so it commits or fails whole. When it failed for what running its items alone may
 * avoid (`retryAlone`: a value Postgres refused, a deadlock), its items run again alone, one after the other, so
 * a refused value fails only its own item. Any other failure (Postgres unreachable, a timeout) is every item's
 * answer, as it would have been alone.
 */
export class StatementBatcher<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private inFlight = 0;
  private sweep?: NodeJS.Timeout;
  private patience?: NodeJS.Timeout;

  constructor(
    private readonly options: BatchOptions<I>,
    private readonly runOne: (item: I) => Promise<O>,
    /** The outputs in the order of `items`; a batch always has 2 items or more, of distinct keys. */
    private readonly runBatch: (items: I[]) => Promise<O[]>,
  ) {}

  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, since: Date.now(), resolve, reject });
      if (this.mayStart()) this.next();
      else this.waitForAnother();
    });
  }

  /** Whether a statement may start now: none runs, or fewer than the most and `another` says so. */
  private mayStart(): boolean {
    if (this.inFlight === 0) return true;
    if (this.inFlight >= this.options.maxInFlight || this.waiting.length === 0) return false;
    const another = this.options.another;
    if (!another) return true;
    return this.waiting.length >= another.waiting || Date.now() - this.waiting[0].since >= another.afterMs;
  }

  /** Keeps the waiting items to their deadline, and to `another.afterMs` while a statement could start beside one. */
  private waitForAnother(): void {
    this.sweepLater();
    const another = this.options.another;
    if (!another || this.patience || this.inFlight >= this.options.maxInFlight || this.waiting.length === 0) return;
    this.patience = setTimeout(
      () => {
        this.patience = undefined;
        if (this.mayStart()) this.next();
        else this.waitForAnother();
      },
      Math.max(0, this.waiting[0].since + another.afterMs - Date.now()),
    );
    this.patience.unref();
  }

  private next(): void {
    const batch = this.take();
    if (batch.length === 0) return;
    this.inFlight += 1;
    void this.settle(batch).finally(() => {
      this.inFlight -= 1;
      if (this.mayStart()) this.next();
      else this.waitForAnother();
    });
    this.waitForAnother();
  }

  /** The oldest waiting items, up to `maxBatch`, one per key; the others keep their place. */
  private take(): Waiting<I, O>[] {
    const batch: Waiting<I, O>[] = [];
    const keys = new Set<unknown>();
    const left: Waiting<I, O>[] = [];
    for (const waiting of this.waiting) {
      const key = this.options.key(waiting.item);
      if (batch.length < this.options.maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(waiting);
      } else {
        left.push(waiting);
      }
    }
    this.waiting = left;
    return batch;
  }

  /** Fails the items that waited too long, when the oldest of them will have. */
  private sweepLater(): void {
    if (this.sweep || this.waiting.length === 0) return;
    const oldest = this.waiting[0];
    this.sweep = setTimeout(
      () => {
        this.sweep = undefined;
        const now = Date.now();
        while (this.waiting.length > 0 && now - this.waiting[0].since >= this.options.maxWaitMs) {
          (this.waiting.shift() as Waiting<I, O>).reject(this.options.waitedTooLong());
        }
        this.sweepLater();
      },
      Math.max(0, oldest.since + this.options.maxWaitMs - Date.now()),
    );
    this.sweep.unref();
  }

  /** Settles every item of the batch; never rejects. */
  private async settle(batch: Waiting<I, O>[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const outputs = await this.runBatch(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(outputs[i]));
        return;
      } catch (error) {
        if (!this.judge('retryAlone', error)) {
          this.fail(batch, error);
          return;
        }
      }
    }
    for (const w of batch) {
      try {
        w.resolve(await this.runOne(w.item));
      } catch (error) {
        this.fail([w], error);
      }
    }
  }

  /** Fails `batch` with `error`, and every waiting item too when it would meet the same. */
  private fail(batch: Waiting<I, O>[], error: unknown): void {
    for (const w of batch) w.reject(error);
    if (!this.judge('failsAll', error)) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w.reject(error);
  }

  /** An option's answer about `error`; false should the option itself throw. */
  private judge(question: 'retryAlone' | 'failsAll', error: unknown): boolean {
    try {
      return this.options[question](error);
    } catch {
      return false;
    }
  }
}
