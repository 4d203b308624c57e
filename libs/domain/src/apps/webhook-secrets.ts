import type { App, RetiredWebhookSecret } from '../../../persistence/src/index.js';

/** How long a webhook secret replaced by a rotation keeps signing. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/** The most secrets that sign one request: the current one and those replaced within 24 hours. */
export const MAX_SIGNING_SECRETS = 10;

/** The encrypted secrets that sign a request sent at `now`: the current one first, then the newest retired. */
export function signingSecretsOf(app: Pick<App, 'webhookSecretEnc' | 'retiredWebhookSecrets'>, now: Date): string[] {
  const retired = (app.retiredWebhookSecrets ?? []) as RetiredWebhookSecret[];
  const valid = retired
    .filter((secret) => new Date(secret.valid_until) > now)
    .sort((a, b) => b.valid_until.localeCompare(a.valid_until));
  return [app.webhookSecretEnc, ...valid.map((secret) => secret.secret_enc)];
}
