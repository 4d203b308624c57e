import { type CanActivate, type ExecutionContext, Injectable, SetMetadata, createParamDecorator } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { DomainError, ErrorCode } from '../../../../libs/domain/src/index.js';
import { consoleAuthorization } from '../console/console-cookie.js';
import { type AuthClaims, type Role, TokenVerifier } from './token-verifier.js';

const ROLE_KEY = 'toolgate:role';

/** The role a route needs. Routes without it are public (health, docs). */
export const Auth = (role: Role) => SetMetadata(ROLE_KEY, role);

type AuthedRequest = FastifyRequest & { auth?: AuthClaims };

/**
 * Checks the token and its role; a project or agent token reaches only its own path: another
 * project's or agent's id in the path is answered 404, as if it did not exist.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: TokenVerifier,
  ) {}

  /** The role each route needs (by controller, then handler), read from their metadata once. */
  private readonly roles = new WeakMap<object, WeakMap<object, Role | null>>();

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const role = this.roleOf(context);
    if (!role) return true;
    const request = context.switchToHttp().getRequest<AuthedRequest>();
    // The developer console's page reaches the developer routes with its cookie (console-cookie.ts).
    const authorization =
      request.headers.authorization ?? (role === 'developer' ? consoleAuthorization(request) : undefined);
    const claims = await this.verifier.verify(authorization);
    if (claims.role !== role) {
      throw new DomainError(
        ErrorCode.Forbidden,
        `This route needs a ${role} token; this one is a ${claims.role} token.`,
      );
    }
    const params = request.params as Record<string, string | undefined>;
    if (claims.role === 'project' && params.project_id !== undefined && params.project_id !== claims.project_id) {
      throw DomainError.notFound(`Project "${params.project_id}"`);
    }
    if (claims.role === 'agent' && params.agent_id !== undefined && params.agent_id !== claims.agent_id) {
      throw DomainError.notFound(`Agent "${params.agent_id}"`);
    }
    request.auth = claims;
    return true;
  }

  private roleOf(context: ExecutionContext): Role | null {
    const controller = context.getClass();
    const handler = context.getHandler();
    let ofController = this.roles.get(controller);
    if (!ofController) this.roles.set(controller, (ofController = new WeakMap()));
    let role = ofController.get(handler);
    if (role === undefined) {
      role = this.reflector.getAllAndOverride<Role | undefined>(ROLE_KEY, [handler, controller]) ?? null;
      ofController.set(handler, role);
    }
    return role;
  }
}

/** The developer id (`sub`) of a developer token. */
export const DeveloperId = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const auth = context.switchToHttp().getRequest<AuthedRequest>().auth;
  if (auth?.role !== 'developer') throw new Error('DeveloperId used on a route without @Auth("developer")');
  return auth.sub;
});

export interface AgentIdentity {
  projectId: string;
  agentId: string;
}

/** The project and agent of the agent token the request was let in with. */
export function agentIdentityOf(context: ExecutionContext): AgentIdentity {
  const auth = context.switchToHttp().getRequest<AuthedRequest>().auth;
  if (auth?.role !== 'agent') throw new Error('AgentAuth used on a route without @Auth("agent")');
  return { projectId: auth.project_id, agentId: auth.agent_id };
}

/** The project and agent of an agent token. */
export const AgentAuth = createParamDecorator((_: unknown, context: ExecutionContext) => agentIdentityOf(context));
