import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  createMcpHandler,
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ENV, type Env } from '../../../../libs/config/src/index.js';
import { AgentToolsets, type FieldProblem, unstorableJsonProblems } from '../../../../libs/domain/src/index.js';
import { CallSignals } from '../../../../libs/broadcast/src/index.js';
import { AgentAuth, type AgentIdentity, Auth } from '../common/auth.guard.js';
import { Problems } from '../common/openapi.js';
import { problem } from '../common/problem-details.filter.js';
import { type AgentMcpSession, AgentMcpServers, mcpRequestKey } from './agent-mcp-servers.js';

/** The Node request the MCP SDK reads, with `auth` for the SDK's handler. */
type McpNodeRequest = IncomingMessage & {
  auth?: { token: string; clientId: string; scopes: string[]; extra: { session: AgentMcpSession } };
};

function isCancellation(body: unknown): body is { params: { requestId: string | number } } {
  const message = body as { method?: unknown; id?: unknown; params?: { requestId?: unknown } } | undefined;
  return (
    message?.method === 'notifications/cancelled' &&
    message.id === undefined &&
    (typeof message.params?.requestId === 'string' || typeof message.params?.requestId === 'number')
  );
}

function isInitialize(body: unknown): boolean {
  const message = body as { method?: unknown } | null | undefined;
  return typeof message === 'object' && message !== null && message.method === 'initialize';
}

/** The client's `Mcp-Session-Id`, where it sends one (given at `initialize`: nothing is kept under it). */
function clientSessionOf(req: FastifyRequest): string | undefined {
  const value = req.headers['mcp-session-id'];
  return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : undefined;
}

/** A JSON-RPC "invalid params" answer naming each field that cannot be taken (NUL, too deep, ...). */
function invalidParamsAnswer(body: unknown, problems: FieldProblem[]) {
  const id = (body as { id?: unknown } | null)?.id;
  const hasId = typeof id === 'string' || typeof id === 'number';
  const message = `Invalid params: ${problems.map((p) => `${p.path || '(the message)'} ${p.message}`).join('; ')}.`;
  return {
    status: hasId ? 200 : 400,
    body: { jsonrpc: '2.0', id: hasId ? id : null, error: { code: -32602, message } },
  };
}

/**
 * `/v1/agents/{agent_id}/mcp`: the agent's tools as one MCP server (Streamable HTTP, stateless),
 * for the 2026-07-28 protocol and the 2025 ones. Host and Origin are checked (DNS rebinding).
 */
@ApiTags('agents')
@ApiBearerAuth()
@Auth('agent')
@Controller('v1/agents/:agent_id/mcp')
export class AgentMcpController {
  private readonly handler: ReturnType<typeof toNodeHandler>;
  private readonly allowedHosts: string[];

  constructor(
    @Inject(ENV) env: Env,
    servers: AgentMcpServers,
    private readonly toolsets: AgentToolsets,
    private readonly signals: CallSignals,
  ) {
    this.handler = toNodeHandler(
      createMcpHandler((ctx) => servers.build((ctx.authInfo?.extra as { session: AgentMcpSession }).session)),
    );
    const publicHost = new URL(env.PUBLIC_BASE_URL).hostname;
    const extra = (env.MCP_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    this.allowedHosts = [...new Set([...localhostAllowedHostnames(), publicHost, ...extra])];
  }

  @All()
  @ApiOperation({
    summary: "The agent's tools as an MCP server (Streamable HTTP, stateless)",
    description: 'POST carries JSON-RPC.',
  })
  @ApiParam({ name: 'agent_id', description: "The agent's id, as in its token", schema: { type: 'string' } })
  @ApiResponse({
    status: 200,
    description: 'The JSON-RPC answer, as JSON or an event stream',
    content: {
      'application/json': { schema: { type: 'object' } },
      'text/event-stream': { schema: { type: 'string' } },
    },
  })
  @ApiResponse({
    status: 202,
    description: 'A notification, accepted',
    content: { 'application/json': { schema: {} } },
  })
  @Problems(400, 401, 403, 413, 503)
  async serve(@AgentAuth() agent: AgentIdentity, @Req() req: FastifyRequest, @Res() res: FastifyReply): Promise<void> {
    const host = validateHostHeader(req.headers.host, this.allowedHosts);
    const origin = validateOriginHeader(req.headers.origin, this.allowedHosts);
    if (!host.ok || !origin.ok) {
      const detail = !host.ok
        ? `Host "${req.headers.host}" is not allowed`
        : `Origin "${req.headers.origin}" is not allowed`;
      const body = JSON.stringify(problem(403, 'forbidden', `${detail}: add it to MCP_ALLOWED_ORIGINS.`));
      void res.code(403).type('application/problem+json; charset=utf-8').send(body);
      return;
    }
    const problems = unstorableJsonProblems(req.body);
    if (problems.length > 0) {
      const answer = invalidParamsAnswer(req.body, problems);
      void res.code(answer.status).send(answer.body);
      return;
    }
    // A 2025-protocol client cancels with a separate POST, maybe to another replica: pass it on to all.
    const clientSessionId = clientSessionOf(req);
    if (isCancellation(req.body)) {
      // Best effort: while Redis is away a cancel cannot travel, and the call still ends at its deadline.
      await this.signals
        .publishCancel(mcpRequestKey(agent, clientSessionId, req.body.params.requestId))
        .catch(() => undefined);
      void res.code(202).send();
      return;
    }
    // The cached toolset of its generation: the MCP view of it (tools/list, wait tools) is built once per generation.
    const toolset = await this.toolsets.load(agent);
    const raw: McpNodeRequest = req.raw;
    const session: AgentMcpSession = { agent, toolset, clientSessionId, requestId: req.id };
    raw.auth = { token: '', clientId: agent.agentId, scopes: [], extra: { session } };
    // A 2025-protocol client is given a session id to send back: stateless still (nothing is kept under it), it tells
    // one conversation's calls from another's (their dialog, when the client names none; their cancellations).
    if (isInitialize(req.body)) res.raw.setHeader('mcp-session-id', randomUUID());
    // The SDK writes the Node response itself: Fastify must not send one too.
    res.hijack();
    await this.handler(raw, res.raw, req.body);
  }
}
