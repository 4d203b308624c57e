import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Observable, lastValueFrom, of } from 'rxjs';
import { z } from 'zod';
import { IdempotentRequests } from '../../../../libs/domain/src/index.js';
import { type AgentIdentity, agentIdentityOf } from './auth.guard.js';
import { StorableInputPipe } from './storable-input.pipe.js';
import { ZodValidationPipe } from './zod-validation.pipe.js';

const IdempotencyHeaderSchema = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1–255 visible ASCII characters')
    .optional(),
});

const idempotencyHeaderPipe = new ZodValidationPipe(IdempotencyHeaderSchema);
const storableInput = new StorableInputPipe();

/** What an idempotent route tells the interceptor. */
export interface IdempotentRoute<A> {
  /** The route's body schema: a refused body is answered as the route would, before the key is touched. */
  body: z.ZodType;
  /** What repeats get when the first answer is too large to keep: small, and says where to read the rest. */
  reduced(answer: A, agent: AgentIdentity): unknown;
}

const IDEMPOTENT_ROUTE = 'toolgate:idempotent-route';

/**
 * `Idempotency-Key` on an agent route: repeats of the same key and body within 24 h get the first
 * answer (status and body, `Idempotent-Replayed: true`) and run nothing again. The rules and the
 * store are IdempotentRequests'; this maps them onto the request and the reply.
 */
export function Idempotent<A>(route: IdempotentRoute<A>) {
  return applyDecorators(
    SetMetadata(IDEMPOTENT_ROUTE, route),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description: 'Repeats within 24 h get the first answer; nothing is delivered again',
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
    }),
  );
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly requests: IdempotentRequests,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const header = request.headers['idempotency-key'];
    if (header === undefined) return next.handle();
    const route = this.reflector.get<IdempotentRoute<unknown>>(IDEMPOTENT_ROUTE, context.getHandler());
    // The route's own pipes, in their order: the hash is of the body the route takes.
    const body = new ZodValidationPipe(route.body).transform(
      storableInput.transform(request.body, { type: 'body', metatype: undefined, data: undefined }),
    );
    const { 'Idempotency-Key': key } = idempotencyHeaderPipe.transform({ 'Idempotency-Key': header });
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const agent = agentIdentityOf(context);
    const answer = await this.requests.run(agent, key as string, body, async () => {
      const sent: unknown = await lastValueFrom(next.handle());
      return { status: reply.statusCode, body: sent, reduced: () => route.reduced(sent, agent) };
    });
    reply.code(answer.status);
    if (answer.replayed) reply.header('Idempotent-Replayed', 'true');
    return of(answer.body);
  }
}
