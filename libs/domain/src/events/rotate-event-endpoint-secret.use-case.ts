import { Injectable } from '@nestjs/common';
import { EventEndpointsRepository } from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { generateWebhookSecret } from '../../../signing/src/index.js';
import { MAX_SIGNING_SECRETS, PREVIOUS_SECRET_GRACE_MS } from '../apps/webhook-secrets.js';
import { DomainError } from '../errors.js';
import { noEndpoint } from './get-event-endpoint.use-case.js';

/**
 * A new secret for the project's event endpoint; each one it replaced within 24 hours keeps signing, as for an
 * app's webhook secret (RotateWebhookSecret): at most 10 sign at once, past that 409.
 */
@Injectable()
export class RotateEventEndpointSecret {
  constructor(
    private readonly endpoints: EventEndpointsRepository,
    private readonly secrets: SecretBox,
  ) {}

  async execute(projectId: string, now = new Date()): Promise<{ secret: string; previousValidUntil: Date }> {
    const secret = generateWebhookSecret();
    const previousValidUntil = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS);
    const encrypted = await this.secrets.encrypt(secret);
    const rotation = await this.endpoints.rotateSecret(
      projectId,
      encrypted,
      now,
      previousValidUntil,
      MAX_SIGNING_SECRETS - 1,
    );
    if (!rotation) throw noEndpoint(projectId);
    if (!rotation.rotated) {
      const next = rotation.retired.map((retired) => retired.valid_until).sort()[0];
      throw DomainError.conflict(
        `The event endpoint of project "${projectId}" has ${MAX_SIGNING_SECRETS} secrets signing already (the current ` +
          `one and those replaced within 24 hours). The next rotation is allowed at ${next}, when the oldest stops signing.`,
      );
    }
    return { secret, previousValidUntil };
  }
}
