import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { ENV, type Env } from '../../../../libs/config/src/index.js';
import { TOOLGATE_VERSION } from '../../../../libs/outbound-http/src/index.js';
import {
  type AgentRef,
  type AgentTool,
  agentKey,
  DIALOG_ID_META,
  DomainError,
  GetAgentToolCall,
  LEAD_ID_META,
  mcpDialogId,
  mcpLeadId,
  RunAgentMcpCall,
  type ToolCallInput,
} from '../../../../libs/domain/src/index.js';
import { presentAgentTool } from '../agents/agents.presenter.js';
import { CallSignals } from '../../../../libs/broadcast/src/index.js';
import {
  CALL_STATUS_TOOL,
  answerCallStatus,
  callStatusTool,
  offersCallStatus,
  stillRunningResult,
} from './agent-mcp-call-status.js';
import { type McpCallResult, finishedCallResult, textResult, withCallId } from './agent-mcp-results.js';
import { refusedCallResult } from './mcp-refusals.js';
import { type Progress, ProgressLimiter } from './progress-limiter.js';
import { AgentMcpTasks, TASK_CAPABILITIES, TaskIdParams, asksForTask, createdTaskResult } from './agent-mcp-tasks.js';

/** What one HTTP request to the agent's MCP endpoint knows: agent, its toolset, client session, request id. */
export interface AgentMcpSession {
  agent: AgentRef;
  /** The agent's whole toolset as cached for its generation (refused tools included). */
  toolset: readonly AgentTool[];
  clientSessionId?: string;
  requestId: string;
}

/** What the MCP server needs of a toolset, built once per toolset generation. */
interface McpToolsetView {
  list: { tools: Tool[] };
  waitTools: Set<string>;
}

interface CallParams {
  name: string;
  arguments?: unknown;
  _meta?: Record<string, unknown>;
  /** 2025-11-25 Tasks: the client asks for the call to run as a task. */
  task?: unknown;
}

/**
 * The key under which an MCP client's cancellation of a request reaches whichever replica runs it:
 * a JSON-RPC id is unique only within one client's session, so project, agent and session come too.
 */
export function mcpRequestKey(
  agent: AgentRef,
  clientSessionId: string | undefined,
  requestId: string | number,
): string {
  return agentKey(agent, clientSessionId ?? '', requestId);
}

/**
 * Builds, per HTTP request (stateless: any replica serves any request), the MCP server of an
 * agent: `tools/list` gives exactly the tools of `GET /v1/agents/{agent_id}/tools`; `tools/call`
 * runs the same path as the REST call.
 */
@Injectable()
export class AgentMcpServers {
  private readonly logger = new Logger('AgentMcp');
  /** Keyed by the cached toolset itself: a new generation is a new array, and the old view goes with it. */
  private readonly views = new WeakMap<readonly AgentTool[], McpToolsetView>();

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly runAgentMcpCall: RunAgentMcpCall,
    private readonly signals: CallSignals,
    private readonly getAgentToolCall: GetAgentToolCall,
    private readonly tasks: AgentMcpTasks,
  ) {}

  build(session: AgentMcpSession): Server {
    const capabilities = { tools: {}, tasks: TASK_CAPABILITIES };
    const server = new Server({ name: 'toolgate', version: TOOLGATE_VERSION }, { capabilities });
    server.setRequestHandler('tools/list', () => this.guarded(session, () => this.viewOf(session.toolset).list));
    server.setRequestHandler('tools/call', (request, ctx) =>
      this.guarded(session, async () => {
        const params = request.params as CallParams;
        const run = params.name === CALL_STATUS_TOOL ? this.callStatus.bind(this) : this.call.bind(this);
        return (await run(session, params, ctx)) as CallToolResult;
      }),
    );
    // 2025-11-25 Tasks: the SDK has no task runtime, so these are registered as its custom methods, over the ledger.
    const agent = session.agent;
    const byId = { params: TaskIdParams };
    server.setRequestHandler('tasks/get', byId, (params) => this.guarded(session, () => this.tasks.get(agent, params)));
    server.setRequestHandler('tasks/result', byId, (params, ctx) =>
      this.guarded(session, () => this.tasks.result(agent, params, ctx.mcpReq.signal)),
    );
    server.setRequestHandler('tasks/cancel', byId, (params) =>
      this.guarded(session, () => this.tasks.cancel(agent, params)),
    );
    return server;
  }

  /**
   * Runs a handler; an unexpected failure is logged with the request id and answered as a generic
   * internal error with that id: the SDK would otherwise send the error's own text (SQL, file paths).
   */
  private async guarded<T>(session: AgentMcpSession, handler: () => T | Promise<T>): Promise<T> {
    try {
      return await handler();
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      const requestId = session.requestId;
      const logged = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
      this.logger.error({ request_id: requestId, error: logged }, 'unhandled MCP error');
      const message = `Internal error. Quote request id ${requestId} when reporting it.`;
      throw new ProtocolError(ProtocolErrorCode.InternalError, message, { request_id: requestId });
    }
  }

  private viewOf(toolset: readonly AgentTool[]): McpToolsetView {
    let view = this.views.get(toolset);
    if (!view) {
      const callable = toolset.filter((tool) => tool.refusal === null);
      const tools: Tool[] = callable.map((tool) => {
        const shown = presentAgentTool(tool);
        return {
          name: shown.name,
          description: shown.description,
          inputSchema: shown.parameters as Tool['inputSchema'],
          ...(tool.mcp?.annotations ? { annotations: tool.mcp.annotations as Tool['annotations'] } : {}),
          // A wait call may outlive any request: a client that can may run it as a task instead of waiting.
          ...(tool.tool?.execution_mode === 'wait' ? { execution: { taskSupport: 'optional' as const } } : {}),
        };
      });
      if (offersCallStatus(callable)) tools.push(callStatusTool(this.env.MCP_WAIT_DEADLINE_S));
      const waitTools = new Set(callable.filter((t) => t.tool?.execution_mode === 'wait').map((t) => t.name));
      view = { list: { tools }, waitTools };
      this.views.set(toolset, view);
    }
    return view;
  }

  private async call(session: AgentMcpSession, params: CallParams, ctx: ServerContext): Promise<McpCallResult> {
    const agent = session.agent;
    // `_meta`: MCP's field for what a request carries beside its arguments.
    const { _meta: meta } = params;
    let input: ToolCallInput;
    try {
      input = {
        tool: params.name,
        dialog_id: mcpDialogId(meta?.[DIALOG_ID_META], agent, session.clientSessionId),
        lead_id: mcpLeadId(meta?.[LEAD_ID_META]),
        arguments: params.arguments,
      };
    } catch (error) {
      if (error instanceof DomainError) return refusedCallResult(params.name, error);
      throw error;
    }
    const waitTool = this.viewOf(session.toolset).waitTools.has(params.name);
    if (waitTool && asksForTask(params)) return this.callAsTask(session, input);
    const abort = new AbortController();
    const onClientGone = () => abort.abort();
    ctx.mcpReq.signal.addEventListener('abort', onClientGone);
    const requestKey = mcpRequestKey(agent, session.clientSessionId, ctx.mcpReq.id);
    const stopCancelListener = await this.signals.onCancel(requestKey, () => abort.abort());
    const progressToken = ctx.mcpReq._meta?.progressToken;
    // Progress from retries or an app's MCP server reaches the client paced and cut (docs/product.md limits).
    const limiter =
      progressToken === undefined
        ? undefined
        : new ProgressLimiter((progress) =>
            ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, ...progress } }),
          );
    try {
      const outcome = await this.runAgentMcpCall.execute(agent, input, {
        toolset: session.toolset,
        holdsWaitSlot: waitTool,
        deadlineMs: this.env.MCP_WAIT_DEADLINE_S * 1000,
        signal: abort.signal,
        onProgress: limiter && ((progress: Progress) => limiter.push(progress)),
      });
      switch (outcome.kind) {
        case 'refused':
          return refusedCallResult(params.name, outcome.error);
        case 'finished':
          return finishedCallResult(outcome.call);
        case 'task':
          return createdTaskResult(outcome.call);
        case 'background':
          return withCallId(
            textResult(
              `Accepted: call ${outcome.call.id} runs in the background; its result is not reported back here.`,
            ),
            outcome.call.id,
          );
      }
      const { id, status } = outcome.call;
      const pollUrl = `${this.env.PUBLIC_BASE_URL}/v1/agents/${agent.agentId}/tool-calls/${id}?wait=60`;
      return withCallId(stillRunningResult(id, status, this.env.MCP_WAIT_DEADLINE_S, pollUrl), id);
    } finally {
      await limiter?.drain(abort.signal);
      stopCancelListener();
      ctx.mcpReq.signal.removeEventListener('abort', onClientGone);
    }
  }

  /**
   * A wait call run as a task: accepted and answered at once with its task (the call's id); the request's end or
   * cancellation does not touch it, only `tasks/cancel` does. A refused call has no task: it is answered as refused.
   */
  private async callAsTask(session: AgentMcpSession, input: ToolCallInput): Promise<McpCallResult> {
    const outcome = await this.runAgentMcpCall.startTask(session.agent, input, session.toolset);
    return outcome.kind === 'refused' ? refusedCallResult(input.tool, outcome.error) : createdTaskResult(outcome.call);
  }

  /** `toolgate-call-status`: waits for one of the agent's calls; the client's cancellation ends the wait, not the call. */
  private async callStatus(session: AgentMcpSession, params: CallParams, ctx: ServerContext): Promise<McpCallResult> {
    const abort = new AbortController();
    const onClientGone = () => abort.abort();
    ctx.mcpReq.signal.addEventListener('abort', onClientGone);
    const requestKey = mcpRequestKey(session.agent, session.clientSessionId, ctx.mcpReq.id);
    const stopCancelListener = await this.signals.onCancel(requestKey, () => abort.abort());
    try {
      const deadlineS = this.env.MCP_WAIT_DEADLINE_S;
      return await answerCallStatus(this.getAgentToolCall, session.agent, params.arguments, {
        waitMs: deadlineS * 1000,
        deadlineS,
        signal: abort.signal,
      });
    } finally {
      stopCancelListener();
      ctx.mcpReq.signal.removeEventListener('abort', onClientGone);
    }
  }
}
