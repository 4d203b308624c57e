import { Injectable } from '@nestjs/common';
import { AppsRepository } from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { generateWebhookSecret } from '../../../signing/src/index.js';
import { DomainError } from '../errors.js';
import { PREVIOUS_SECRET_GRACE_MS } from './app.js';
import { FindOwnedApp } from './find-owned-app.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';

/** Issues a new webhook secret; the current one keeps signing (as a second signature) for 24 hours. */
@Injectable()
export class RotateWebhookSecret {
  constructor(
    private readonly apps: AppsRepository,
    private readonly secrets: SecretBox,
    private readonly findOwnedApp: FindOwnedApp,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(developerId: string, appId: string, now = new Date()): Promise<{ webhookSecret: string; previousValidUntil: Date }> {
    const app = await this.findOwnedApp.execute(developerId, appId);
    const webhookSecret = generateWebhookSecret();
    const previousValidUntil = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS);
    const updated = await this.apps.update(developerId, appId, {
      webhookSecretEnc: await this.secrets.encrypt(webhookSecret),
      previousWebhookSecretEnc: app.webhookSecretEnc,
      previousSecretValidUntil: previousValidUntil,
    });
    if (!updated) throw DomainError.notFound(`App "${appId}"`);
    // Instant calls sign with the app row of the cached toolset: drop it everywhere.
    await this.toolsets.invalidateApp(appId);
    return { webhookSecret, previousValidUntil };
  }
}
