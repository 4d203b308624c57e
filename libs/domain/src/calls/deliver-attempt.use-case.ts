import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { AppDispatchers, USER_AGENT } from '../../../outbound-http/src/index.js';
import { sendWebhook } from '../../../webhook-sender/src/index.js';
import type { App, ToolCall } from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { signWebhook } from '../../../signing/src/index.js';
import { signingSecretsOf } from '../apps/webhook-secrets.js';
import { AttemptRecorder } from './attempt-recorder.js';
import type { MadeAttempt } from './call-transitions.js';
import type { DeliverySlot } from './delivery-gate.js';
import { parseRetryAfter } from './retry-schedule.js';
import { handlerSaid, resultOf } from './tool-call-body.js';

/** Attempt `n` of an HTTP call, ready to go: the call in progress, its app's secrets and the exact body bytes. */
export interface PreparedAttempt {
  call: ToolCall;
  app: Pick<App, 'webhookSecretEnc' | 'retiredWebhookSecrets'>;
  body: string;
  n: number;
}

/**
 * Makes one prepared attempt of an HTTP call, already on record in progress: signs the exact body bytes with the
 * app's secret(s) at send time, sends, and hands the answer to the recorder's success or failure step. Prepared by
 * AcceptToolCall for an instant call and by DeliverQueuedAttempt for a queued one, whichever process runs it. A
 * queued attempt holds a slot of its process's DeliveryGate: freed once the handler answered, so the record that
 * follows holds none.
 */
@Injectable()
export class DeliverAttempt {
  /** Decrypted webhook secrets by ciphertext, in this process's memory only (a rotation makes a new ciphertext). */
  private readonly decrypted = new Map<string, string>();

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly dispatchers: AppDispatchers,
    private readonly secrets: SecretBox,
    private readonly recorder: AttemptRecorder,
  ) {}

  async execute({ call, app, body, n }: PreparedAttempt, slot?: DeliverySlot): Promise<ToolCall> {
    const secrets = await Promise.all(signingSecretsOf(app, new Date()).map((secret) => this.secret(secret)));
    // Offsets run from the moment attempt 1 goes out, not from the bookkeeping before it.
    const sentAt = new Date();
    const signature = signWebhook(secrets, call.eventId, Math.floor(sentAt.getTime() / 1000), body);
    const sent = await sendWebhook(this.dispatchers.forApp(call.appId), {
      url: call.handlerUrl ?? '',
      body,
      timeoutMs: call.attemptTimeoutS * 1000,
      allowPrivateNetwork: this.env.ALLOW_PRIVATE_NETWORK,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signature },
    });
    slot?.release();
    const made: MadeAttempt = { call, n, sentAt, durationMs: sent.durationMs };
    const details = { httpStatus: sent.httpStatus ?? null, responseExcerpt: sent.excerpt ?? null };
    const answer = {
      body: sent.body ?? Buffer.alloc(0),
      contentType: sent.contentType,
      contentEncoding: sent.contentEncoding,
    };
    const { outcome } = sent;
    // Assigned, not spread: keys a second spread adds to the first one's clone take V8's slow path.
    if (outcome === 'success') return this.recorder.handleSuccess(made, Object.assign(resultOf(answer), details));
    // What the handler said with a 4xx/5xx is what lets the model understand why it failed.
    const said = outcome === 'http_status' || outcome === 'gone' ? handlerSaid(answer) : null;
    return this.recorder.handleFailure(made, {
      outcome,
      reason: sent.error ?? null,
      message: `${sent.error ?? outcome}${said ? `: ${said}` : ''}`,
      retryAfterMs: parseRetryAfter(sent.retryAfter, new Date()),
      ...details,
    });
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

/** Enough for every app delivering at once; past it the cache starts over. */
const MAX_CACHED_SECRETS = 10_000;
