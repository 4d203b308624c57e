import { Injectable } from '@nestjs/common';
import { type App, AppsRepository, HttpToolsRepository } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';
import { FindOwnedApp } from './find-owned-app.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { DeliveryLimits } from '../delivery/delivery-limits.js';

export interface UpdateAppInput {
  display_name?: string;
  embedded_page_url?: string | null;
  developer_page_url?: string | null;
  delivery_limits?: { max_in_flight?: number | null; max_per_second?: number | null } | null;
}

@Injectable()
export class UpdateApp {
  constructor(
    private readonly apps: AppsRepository,
    private readonly tools: HttpToolsRepository,
    private readonly findOwnedApp: FindOwnedApp,
    private readonly toolsets: AgentToolsets,
    private readonly limits: DeliveryLimits,
  ) {}

  async execute(developerId: string, appId: string, input: UpdateAppInput): Promise<App> {
    const app = await this.findOwnedApp.execute(developerId, appId);
    if (
      input.embedded_page_url === null &&
      app.embeddedPageUrl !== null &&
      (await this.tools.countConfigurable(appId)) > 0
    ) {
      throw DomainError.conflict(
        'The app has configurable tools, whose configurator is the embedded page: ' +
          'make them not configurable before removing embedded_page_url.',
      );
    }
    const updated = await this.apps.update(developerId, appId, {
      displayName: input.display_name,
      embeddedPageUrl: input.embedded_page_url,
      developerPageUrl: input.developer_page_url,
      ...limitColumns(input.delivery_limits),
    });
    if (!updated) throw DomainError.notFound(`App "${appId}"`);
    // This process applies new limits at once; the others within DeliveryLimits' cache time.
    if (input.delivery_limits !== undefined) this.limits.forget(appId);
    if (input.display_name !== undefined) await this.toolsets.invalidateApp(appId);
    return updated;
  }
}

/** The columns a PATCH's `delivery_limits` sets: null clears both, an omitted field keeps its value. */
function limitColumns(limits: UpdateAppInput['delivery_limits']) {
  if (limits === undefined) return {};
  return {
    deliveryMaxInFlight: limits === null ? null : limits.max_in_flight,
    deliveryMaxPerSecond: limits === null ? null : limits.max_per_second,
  };
}
