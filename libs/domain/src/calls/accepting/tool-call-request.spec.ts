import { describe, expect, it } from 'vitest';
import { type ToolCallBodyFields, toolCallBody } from './tool-call-request.js';

const call: ToolCallBodyFields = {
  eventId: '019d0000-0000-7000-8000-000000000001',
  acceptedAt: new Date('2026-07-30T12:00:00.000Z'),
  appId: 'app-id',
  installationId: 'installation-id',
  projectId: 'project-id',
  agentId: 'agent-id',
  dialogId: 'dialog-id',
  leadId: 'lead-id',
  toolName: 'find_customer',
  toolInstanceId: 'tool-instance-id',
  arguments: { customer_id: '123' },
};

describe('toolCallBody', () => {
  it('has the keys of docs/webhooks.md in their order', () => {
    const body = toolCallBody(call, { account_id: 'store-1' }, { access_token: 'write-only-token' });
    expect(body).toBe(
      '{"event_id":"019d0000-0000-7000-8000-000000000001","event_type":"tool_call","timestamp":"2026-07-30T12:00:00.000Z",' +
        '"app_id":"app-id","installation_id":"installation-id","project_id":"project-id","agent_id":"agent-id","dialog_id":"dialog-id",' +
        '"lead_id":"lead-id","tool_name":"find_customer","tool_instance_id":"tool-instance-id","arguments":{"customer_id":"123"},' +
        '"configuration":{"account_id":"store-1"},"private_data":{"access_token":"write-only-token"}}',
    );
  });

  it('leaves lead_id out when the dialog has no lead, and sends {} for a tool that is not configurable', () => {
    const body = JSON.parse(toolCallBody({ ...call, leadId: null }, {}, null));
    expect(Object.keys(body)).not.toContain('lead_id');
    expect(body.configuration).toEqual({});
    expect(body.private_data).toEqual({});
  });
});
