import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';

/** Work the worker repeats on a timer, one run at a time (a slow run is never overlapped by the next). */
export abstract class PeriodicTask implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger = new Logger(this.constructor.name);
  private timer?: NodeJS.Timeout;
  private running = false;

  protected abstract readonly everyMs: number;
  protected abstract run(): Promise<void>;

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.everyMs);
    void this.tick();
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.run();
    } catch (error) {
      this.logger.warn(`run failed: ${(error as Error).message}`);
    } finally {
      this.running = false;
    }
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
