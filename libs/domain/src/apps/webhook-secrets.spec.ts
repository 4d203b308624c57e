import { describe, expect, it } from 'vitest';
import { signingSecretsOf } from './webhook-secrets.js';

describe('signingSecretsOf', () => {
  it('gives the current secret first, then every retired one still inside its 24 h, newest first', () => {
    const now = new Date('2026-12-01T12:00:00.000Z');
    const app = {
      webhookSecretEnc: 'current',
      retiredWebhookSecrets: [
        { secret_enc: 'expired', valid_until: '2026-12-01T11:59:59.999Z' },
        { secret_enc: 'older', valid_until: '2026-12-02T01:00:00.000Z' },
        { secret_enc: 'newer', valid_until: '2026-12-02T11:00:00.000Z' },
      ],
    };
    expect(signingSecretsOf(app, now)).toEqual(['current', 'newer', 'older']);
    expect(signingSecretsOf({ webhookSecretEnc: 'only', retiredWebhookSecrets: [] }, now)).toEqual(['only']);
  });
});
