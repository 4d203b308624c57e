import { Injectable } from '@nestjs/common';
import {
  type App,
  HttpToolsRepository,
  McpToolsRepository,
  type McpToolSnapshot,
  type NewToolCall,
  type ToolCall,
  ToolCallLedger,
} from '../../../../persistence/src/index.js';
import { FindOwnedApp } from '../../apps/find-owned-app.js';
import { DomainError, assertNoProblems } from '../../errors.js';
import { newId, uuidv7 } from '../../ids.js';
import { CallMcpTool } from '../../mcp/call-mcp-tool.use-case.js';
import { McpArgumentChecks } from '../../mcp/mcp-argument-checks.js';
import { agentFacingBaseName } from '../../naming.js';
import { type HttpToolRecord, httpToolFromRow } from '../../tools/http-tool-record.js';
import { attemptDeadline } from '../delivering/call-transitions.js';
import { DeliveryEngine } from '../../delivery/delivery-engine.js';
import { appLane } from '../../../../queue/src/index.js';
import { ToolCallBodies } from './tool-call-request.js';
import { ToolCallDelivery } from '../delivering/tool-call-delivery.js';
import { argumentProblems, effectiveParameters, mcpArgumentsObject, normalizeArguments } from './tool-arguments.js';

/** What stands in a test call for the project, agent, installation, instance and dialog it has not. */
export const TEST_CALL_ID = 'test';

export interface TestCallInput {
  arguments?: unknown;
  configuration?: Record<string, unknown>;
  private_data?: Record<string, unknown>;
}

/** The fields a test call's tool decides. */
type ToolFields = Pick<NewToolCall, 'toolKind' | 'toolName' | 'attemptTimeoutS' | 'handlerUrl' | 'arguments'>;

/**
 * A developer tries its own tool: one instant attempt through the real path (the signed webhook with its SSRF guard,
 * timeout and size cap, or one `tools/call` to the app's MCP server), whatever the tool's mode, with arguments
 * checked as a real call's are. No project, agent or installation is needed: each is `test` in the body and the
 * record, and the call is on the developer's history with `test: true`, in no project's metrics.
 */
@Injectable()
export class TestToolCall {
  constructor(
    private readonly findOwnedApp: FindOwnedApp,
    private readonly httpTools: HttpToolsRepository,
    private readonly mcpTools: McpToolsRepository,
    private readonly calls: ToolCallLedger,
    private readonly bodies: ToolCallBodies,
    private readonly engine: DeliveryEngine,
    private readonly toolCalls: ToolCallDelivery,
    private readonly callMcpTool: CallMcpTool,
    private readonly mcpArguments: McpArgumentChecks,
  ) {}

  async execute(developerId: string, appId: string, toolName: string, input: TestCallInput): Promise<ToolCall> {
    const app = await this.findOwnedApp.execute(developerId, appId);
    const row = await this.httpTools.getByName(app.id, toolName);
    if (row) return this.tryHttpTool(app, httpToolFromRow(row), input);
    const mcp = app.mcpUrl ? await this.mcpTools.get(app.id, toolName) : null;
    if (mcp) return this.tryMcpTool(app, mcp, input);
    throw DomainError.notFound(
      `Tool "${toolName}" of app "${appId}" (an HTTP tool's name, or an MCP tool's name in the app's last snapshot)`,
    );
  }

  private async tryHttpTool(app: App, tool: HttpToolRecord, input: TestCallInput): Promise<ToolCall> {
    assertNoProblems(argumentProblems(effectiveParameters(tool.parameters, []), input.arguments));
    const draft = testCall(app, {
      toolKind: 'http',
      toolName: tool.name,
      attemptTimeoutS: tool.attempt_timeout_s,
      handlerUrl: tool.handler_url,
      arguments: normalizeArguments(input.arguments),
    });
    const { body, bodyEnc } = await this.bodies.buildGiven(draft, input.configuration, input.private_data);
    const slot = await this.engine.openNow(appLane(app.id), draft.attemptTimeoutS * 1000);
    try {
      const call = await this.calls.create({ ...draft, bodyEnc });
      return await this.engine.attempt(this.toolCalls, this.toolCalls.prepared(call, app, body, 1), slot);
    } finally {
      slot.release();
    }
  }

  private async tryMcpTool(app: App, tool: McpToolSnapshot, input: TestCallInput): Promise<ToolCall> {
    const args = mcpArgumentsObject(input.arguments);
    assertNoProblems(await this.mcpArguments.problems(tool, args));
    const draft = testCall(app, {
      toolKind: 'mcp',
      toolName: tool.name,
      attemptTimeoutS: Math.ceil(this.callMcpTool.timeoutMs(app, {}) / 1000),
      handlerUrl: app.mcpUrl,
      arguments: args,
    });
    const slot = await this.engine.openNow(appLane(app.id), draft.attemptTimeoutS * 1000);
    try {
      const call = await this.calls.create({ ...draft, bodyEnc: null });
      return await this.callMcpTool.execute(call, app, {}, slot);
    } finally {
      slot.release();
    }
  }
}

/** A test call of `app`'s tool, stored in progress, its one attempt about to be made; `test` for project and agent. */
function testCall(app: Pick<App, 'id' | 'name'>, tool: ToolFields): Omit<NewToolCall, 'bodyEnc'> {
  const now = new Date();
  return {
    ...tool,
    id: newId('call'),
    eventId: uuidv7(now.getTime()),
    appId: app.id,
    installationId: TEST_CALL_ID,
    projectId: TEST_CALL_ID,
    agentId: TEST_CALL_ID,
    toolInstanceId: TEST_CALL_ID,
    agentToolName: agentFacingBaseName(app.name, tool.toolName),
    dialogId: TEST_CALL_ID,
    leadId: null,
    executionMode: 'instant',
    retryWindow: null,
    status: 'in_progress',
    attemptDeadline: attemptDeadline(tool.attemptTimeoutS * 1000),
    acceptedAt: now,
    test: true,
  };
}
