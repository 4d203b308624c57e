// A tool_call webhook body of about the size Toolgate sends for the benchmark's calls (~560 B),
// used by the floors so that they move the same number of bytes.
const body = {
  event_id: '019d0000-0000-7000-8000-000000000001',
  event_type: 'tool_call',
  timestamp: '2026-07-30T12:00:00.000Z',
  app_id: 'app_01jzq2v7k3m4n5p6q7r8s9t0u1',
  installation_id: 'ins_01jzq2v7k3m4n5p6q7r8s9t0u2',
  project_id: 'bench-project-1',
  agent_id: 'bench-agent-1',
  dialog_id: 'dialog-000001',
  tool_name: 'find_customer',
  tool_instance_id: 'ti_01jzq2v7k3m4n5p6q7r8s9t0u3',
  arguments: { customer_id: 'c-000123', note: 'The customer asked about the status of order 0000042 delivered.' },
  configuration: {},
  private_data: {},
};
let text = JSON.stringify(body);
body.arguments.note += 'x'.repeat(Math.max(0, 560 - Buffer.byteLength(text)));
text = JSON.stringify(body);

export const WEBHOOK_BODY = text;

/** The arguments an agent passes in Toolgate's calls (the webhook Toolgate builds from them is ~560 B). */
export const CALL_ARGUMENTS = {
  customer_id: 'c-000123',
  note: 'The customer asked about the status of order 0000042 delivered.',
};
