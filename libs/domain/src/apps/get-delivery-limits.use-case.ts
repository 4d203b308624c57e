import { Injectable } from '@nestjs/common';
import { FleetCounters } from '../../../broadcast/src/index.js';
import { FindOwnedApp } from './find-owned-app.js';

/** An app's delivery limits, and when they last held a request back (in the last 30 days), for its developer. */
export interface DeliveryLimitsStatus {
  max_in_flight: number | null;
  max_per_second: number | null;
  /** ISO 8601; null: never in 30 days (or Redis, which keeps it, does not answer). */
  last_held_back_at: string | null;
}

@Injectable()
export class GetDeliveryLimits {
  constructor(
    private readonly findOwnedApp: FindOwnedApp,
    private readonly counters: FleetCounters,
  ) {}

  async execute(developerId: string, appId: string): Promise<DeliveryLimitsStatus> {
    const app = await this.findOwnedApp.execute(developerId, appId);
    const heldAt = await this.counters.lastHeldBack(`app:${app.id}`);
    return {
      max_in_flight: app.deliveryMaxInFlight,
      max_per_second: app.deliveryMaxPerSecond,
      last_held_back_at: heldAt?.toISOString() ?? null,
    };
  }
}
