import { Injectable } from '@nestjs/common';
import { AppsRepository } from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { generateWebhookSecret } from '../../../signing/src/index.js';
import { DomainError } from '../errors.js';
import { AgentToolsets } from '../agents/agent-toolsets.js';
import { MAX_SIGNING_SECRETS, PREVIOUS_SECRET_GRACE_MS } from './webhook-secrets.js';

/**
 * Issues a new webhook secret; every secret it replaced within the last 24 hours keeps signing
 * (one more signature each), as Svix and Stripe do, so a second rotation (say, of a secret that
 * leaked) never breaks a handler still switching. At most 10 secrets sign at once: past that, 409.
 */
@Injectable()
export class RotateWebhookSecret {
  constructor(
    private readonly apps: AppsRepository,
    private readonly secrets: SecretBox,
    private readonly toolsets: AgentToolsets,
  ) {}

  async execute(
    developerId: string,
    appId: string,
    now = new Date(),
  ): Promise<{ webhookSecret: string; previousValidUntil: Date }> {
    const webhookSecret = generateWebhookSecret();
    const previousValidUntil = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS);
    const encrypted = await this.secrets.encrypt(webhookSecret);
    const rotation = await this.apps.rotateWebhookSecret(
      developerId,
      appId,
      encrypted,
      now,
      previousValidUntil,
      MAX_SIGNING_SECRETS - 1,
    );
    if (!rotation) throw DomainError.notFound(`App "${appId}"`);
    if (!rotation.rotated) {
      const next = rotation.retired.map((secret) => secret.valid_until).sort()[0];
      throw DomainError.conflict(
        `App "${appId}" has ${MAX_SIGNING_SECRETS} webhook secrets signing already (the current one and those replaced within 24 hours). ` +
          `The next rotation is allowed at ${next}, when the oldest stops signing.`,
      );
    }
    // Instant calls sign with the app row of the cached toolset: drop it everywhere.
    await this.toolsets.invalidateApp(appId);
    return { webhookSecret, previousValidUntil };
  }
}
