import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { AppDispatchers, USER_AGENT } from '../../../outbound-http/src/index.js';
import { laneKey } from '../../../queue/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { signWebhook } from '../../../signing/src/index.js';
import { sendWebhook } from '../../../webhook-sender/src/index.js';
import { signingSecretsOf } from '../apps/webhook-secrets.js';
import type { DeliveryTarget, SentDelivery } from './delivery-kind.js';

/**
 * The one place a delivery is signed and sent, whatever its kind: the secrets are decrypted at send time (kept in
 * this process's memory only, by ciphertext: a rotation makes a new one), the exact body bytes are signed with each
 * (Standard Webhooks), and the webhook sender posts them through the lane's SSRF-guarded pool (no redirects, the
 * timeout, a 1 MiB cap on the answer).
 */
@Injectable()
export class SignedSender {
  private readonly decrypted = new Map<string, string>();

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly dispatchers: AppDispatchers,
    private readonly secrets: SecretBox,
  ) {}

  async send(target: DeliveryTarget, body: string): Promise<SentDelivery> {
    const secrets = await Promise.all(
      signingSecretsOf(target.signing, new Date()).map((secret) => this.secret(secret)),
    );
    // Offsets run from the moment attempt 1 goes out, not from the bookkeeping before it.
    const sentAt = new Date();
    const signature = signWebhook(secrets, target.webhookId, Math.floor(sentAt.getTime() / 1000), body);
    const sent = await sendWebhook(this.dispatchers.forApp(laneKey(target.lane)), {
      url: target.url,
      body,
      timeoutMs: target.timeoutMs,
      allowPrivateNetwork: this.env.ALLOW_PRIVATE_NETWORK,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signature },
    });
    // Assigned, not spread: keys a second spread adds to the first one's clone take V8's slow path.
    return Object.assign(sent, { sentAt });
  }

  private async secret(encrypted: string): Promise<string> {
    const known = this.decrypted.get(encrypted);
    if (known !== undefined) return known;
    const secret = await this.secrets.decrypt(encrypted);
    if (this.decrypted.size >= MAX_CACHED_SECRETS) this.decrypted.clear();
    this.decrypted.set(encrypted, secret);
    return secret;
  }
}

/** Enough for every app and endpoint delivering at once; past it the cache starts over. */
const MAX_CACHED_SECRETS = 10_000;
