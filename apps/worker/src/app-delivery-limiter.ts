import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';

/**
 * At most APP_DELIVERY_CONCURRENCY deliveries of one app in flight in this worker: a handler
 * that hangs until its timeout, or fails every call, ties up its own app's slots, never the rest.
 */
@Injectable()
export class AppDeliveryLimiter {
  private readonly inFlight = new Map<string, number>();

  constructor(@Inject(ENV) private readonly env: Env) {}

  tryAcquire(appId: string): boolean {
    const current = this.inFlight.get(appId) ?? 0;
    if (current >= this.env.APP_DELIVERY_CONCURRENCY) return false;
    this.inFlight.set(appId, current + 1);
    return true;
  }

  release(appId: string): void {
    const current = (this.inFlight.get(appId) ?? 1) - 1;
    if (current <= 0) this.inFlight.delete(appId);
    else this.inFlight.set(appId, current);
  }
}
