import { Injectable } from '@nestjs/common';
import { type App, AppsRepository, isUniqueViolation } from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { generateWebhookSecret } from '../../../signing/src/index.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';

export interface CreateAppInput {
  name: string;
  display_name: string;
}

/** Registers an app; its webhook secret is returned here and never again. */
@Injectable()
export class CreateApp {
  constructor(
    private readonly apps: AppsRepository,
    private readonly secrets: SecretBox,
  ) {}

  async execute(developerId: string, input: CreateAppInput): Promise<{ app: App; webhookSecret: string }> {
    const webhookSecret = generateWebhookSecret();
    try {
      const app = await this.apps.create(developerId, {
        id: newId('app'),
        name: input.name,
        displayName: input.display_name,
        webhookSecretEnc: await this.secrets.encrypt(webhookSecret),
      });
      return { app, webhookSecret };
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw DomainError.conflict(
          `An app named "${input.name}" already exists: app names are unique across Toolgate, choose another.`,
        );
      }
      throw error;
    }
  }
}
