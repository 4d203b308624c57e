import { Injectable } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { IdempotentRequests } from '../../../../libs/domain/src/index.js';
import type { AgentIdentity } from './auth.guard.js';
import { ZodValidationPipe } from './zod-validation.pipe.js';

const IdempotencyHeaderSchema = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1–255 visible ASCII characters')
    .optional(),
});

const idempotencyHeaderPipe = new ZodValidationPipe(IdempotencyHeaderSchema);

/** Documents the `Idempotency-Key` header of a route that answers through `IdempotentAnswers`. */
export function IdempotencyKeyHeader() {
  return ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'Repeats within 24 h get the first answer; nothing is delivered again',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
  });
}

/** How a route answers, and what repeats get when that answer is too large to keep. */
export interface IdempotentRun<A> {
  /** Runs the route: its answer's body (the status is the reply's). */
  run(): Promise<A>;
  /** Small, and says where to read the rest. */
  reduced(answer: A, agent: AgentIdentity): unknown;
}

/**
 * `Idempotency-Key` on an agent route: repeats of the same key and body within 24 h get the first answer
 * (status and body, `Idempotent-Replayed: true`) and run nothing again. The rules and the store are
 * IdempotentRequests'; this maps them onto the request and the reply.
 *
 * The route calls it with its body as its pipes gave it (a refused body never touches the key). Not an
 * interceptor: Nest runs every request of a route with an interceptor through rxjs, which cost 0.09 ms of
 * API CPU per call (bench/cpu-per-call.mjs), a key or not.
 */
@Injectable()
export class IdempotentAnswers {
  constructor(private readonly requests: IdempotentRequests) {}

  async answer<A>(
    request: FastifyRequest,
    reply: FastifyReply,
    agent: AgentIdentity,
    body: unknown,
    route: IdempotentRun<A>,
  ): Promise<unknown> {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return route.run();
    const { 'Idempotency-Key': key } = idempotencyHeaderPipe.transform({ 'Idempotency-Key': header });
    const answer = await this.requests.run(agent, key as string, body, async () => {
      const sent = await route.run();
      return { status: reply.statusCode, body: sent, reduced: () => route.reduced(sent, agent) };
    });
    reply.code(answer.status);
    if (answer.replayed) reply.header('Idempotent-Replayed', 'true');
    return answer.body;
  }
}
