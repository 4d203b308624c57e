import type { ToolCall } from '../../../persistence/src/index.js';

/**
 * The `tool_call` webhook body, keys in the order of WEBHOOKS.md; `lead_id` only when the dialog
 * has a lead. Built once per call: every attempt and replay sends these exact bytes.
 */
export function toolCallBody(call: ToolCall, configuration: unknown, privateData: unknown): string {
  return JSON.stringify({
    event_id: call.eventId,
    event_type: 'tool_call',
    timestamp: call.acceptedAt.toISOString(),
    app_id: call.appId,
    installation_id: call.installationId,
    project_id: call.projectId,
    agent_id: call.agentId,
    dialog_id: call.dialogId,
    ...(call.leadId !== null ? { lead_id: call.leadId } : {}),
    tool_name: call.toolName,
    tool_instance_id: call.toolInstanceId,
    arguments: call.arguments,
    configuration: configuration ?? {},
    private_data: privateData ?? {},
  });
}

/** A handler's answer as the tool result: JSON when it parses, else the text. */
export function resultOf(body: Buffer): { result: unknown; resultText: string } {
  const text = body.toString('utf8');
  if (text.trim() === '') return { result: null, resultText: '' };
  try {
    const result = JSON.parse(text) as unknown;
    return { result, resultText: typeof result === 'string' ? result : JSON.stringify(result) };
  } catch {
    return { result: text, resultText: text };
  }
}
