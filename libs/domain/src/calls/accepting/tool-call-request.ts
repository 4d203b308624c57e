import { Injectable } from '@nestjs/common';
import { type ToolCall, type ToolInstance, isoTimestamp } from '../../../../persistence/src/index.js';
import { SecretBox } from '../../../../secrets/src/index.js';

/** What of a call its body carries: a stored call and a call about to be stored alike. */
export type ToolCallBodyFields = Pick<
  ToolCall,
  | 'eventId'
  | 'acceptedAt'
  | 'appId'
  | 'installationId'
  | 'projectId'
  | 'agentId'
  | 'dialogId'
  | 'leadId'
  | 'toolName'
  | 'toolInstanceId'
> & { arguments: unknown };

/**
 * The `tool_call` webhook body, keys in the order of docs/webhooks.md; `lead_id` only when the dialog
 * has a lead. Built once per call: every attempt and replay sends these exact bytes.
 */
export function toolCallBody(call: ToolCallBodyFields, configuration: unknown, privateData: unknown): string {
  return JSON.stringify({
    event_id: call.eventId,
    event_type: 'tool_call',
    timestamp: isoTimestamp(call.acceptedAt),
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

/** A call's body: the bytes sent, and the same encrypted as they are stored. */
export interface BuiltBody {
  body: string;
  bodyEnc: string;
}

/**
 * The one place a call's body is built: when the API accepts the call (for an instant call that is its one
 * attempt), with the instance's configuration and its private data decrypted then, and encrypted once to be stored.
 */
@Injectable()
export class ToolCallBodies {
  constructor(private readonly secrets: SecretBox) {}

  async build(
    call: ToolCallBodyFields,
    instance: Pick<ToolInstance, 'configuration' | 'privateDataEnc'>,
  ): Promise<BuiltBody> {
    const privateData = instance.privateDataEnc ? await this.secrets.decryptJson(instance.privateDataEnc) : {};
    const body = toolCallBody(call, instance.configuration, privateData);
    return { body, bodyEnc: await this.secrets.encrypt(body) };
  }

  /** A developer's test call: configuration and private data as the developer gave them, not an instance's. */
  async buildGiven(call: ToolCallBodyFields, configuration: unknown, privateData: unknown): Promise<BuiltBody> {
    const body = toolCallBody(call, configuration, privateData);
    return { body, bodyEnc: await this.secrets.encrypt(body) };
  }

  /** The stored bytes of a call's body. */
  async stored(bodyEnc: string): Promise<string> {
    return this.secrets.decrypt(bodyEnc);
  }
}
