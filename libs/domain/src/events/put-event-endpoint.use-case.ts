import { Injectable } from '@nestjs/common';
import { EventEndpointsRepository } from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { generateWebhookSecret } from '../../../signing/src/index.js';
import { newId } from '../ids.js';

/**
 * Sets the project's event endpoint and answers its secret: a new endpoint gets a new `whsec_` secret (stored
 * encrypted, as an app's webhook secret); an endpoint moved to another URL keeps its secret, so that the host's
 * verification goes on working (a new secret is what rotate-secret is for).
 */
@Injectable()
export class PutEventEndpoint {
  constructor(
    private readonly endpoints: EventEndpointsRepository,
    private readonly secrets: SecretBox,
  ) {}

  async execute(projectId: string, url: string): Promise<{ url: string; secret: string }> {
    const fresh = generateWebhookSecret();
    const stored = await this.endpoints.put(projectId, newId('endpoint'), url, await this.secrets.encrypt(fresh));
    return { url: stored.url, secret: await this.secrets.decrypt(stored.secretEnc) };
  }
}
