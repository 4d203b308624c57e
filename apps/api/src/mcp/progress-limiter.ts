export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** What reaches an agent's MCP client: at most 4 progress messages a second per call, each at most 200 characters. */
export const PROGRESS_INTERVAL_MS = 250;
export const PROGRESS_MESSAGE_CHARS = 200;

/**
 * Paces one call's progress notifications: one goes out at once when the last went out at least
 * 250 ms ago; the ones that come faster are coalesced into the newest, sent when its turn comes,
 * and `drain` sends a pending one before the call's result, so the final state is not lost.
 */
export class ProgressLimiter {
  private lastSentAt = -Infinity;
  private pending: Progress | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly send: (progress: Progress) => Promise<void>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  push(progress: Progress): void {
    if (this.closed) return; // the call has answered: progress for it would come after its result
    this.pending = {
      ...progress,
      ...(progress.message !== undefined ? { message: cutMessage(progress.message) } : {}),
    };
    const wait = this.lastSentAt + PROGRESS_INTERVAL_MS - this.now();
    if (wait <= 0) this.sendPending();
    else this.timer ??= setTimeout(() => this.sendPending(), wait);
  }

  /** Sends what is still pending (waiting for its turn, at most 250 ms), unless the call was abandoned. */
  async drain(signal?: AbortSignal): Promise<void> {
    if (this.pending && !signal?.aborted) {
      const wait = this.lastSentAt + PROGRESS_INTERVAL_MS - this.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!signal?.aborted) this.sendPending();
    }
    this.close();
    await this.sending;
  }

  /** Drops whatever is pending, and whatever comes later. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
  }

  private sendPending(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const progress = this.pending;
    if (!progress) return;
    this.pending = null;
    this.lastSentAt = this.now();
    this.sending = this.send(progress).catch(() => undefined);
  }
}

/** At most 200 characters (whole code points), the cut marked with "…". */
export function cutMessage(message: string): string {
  if (message.length <= PROGRESS_MESSAGE_CHARS) return message;
  const chars = Array.from(message);
  return chars.length <= PROGRESS_MESSAGE_CHARS ? message : `${chars.slice(0, PROGRESS_MESSAGE_CHARS - 1).join('')}…`;
}
