import { createHash, randomUUID } from 'node:crypto';
import { type AgentRef, agentKey } from '../agents/agent-ref.js';
import { DomainError } from '../errors.js';

/** The `_meta` key of an agent's `tools/call` that names the host's dialog (the call's `dialog_id`). */
export const DIALOG_ID_META = 'toolgate/dialog_id';

/** The `_meta` key of an agent's `tools/call` that names the dialog's lead (the call's `lead_id`). */
export const LEAD_ID_META = 'toolgate/lead_id';

const MAX_DIALOG_ID_CHARS = 200;
const MAX_LEAD_ID_CHARS = 200;

/** The lead a call over MCP names in `_meta["toolgate/lead_id"]`, as REST's `lead_id`: none when left out or null. */
export function mcpLeadId(named: unknown): string | null {
  if (named === undefined || named === null) return null;
  if (typeof named === 'string' && named.length > 0 && named.length <= MAX_LEAD_ID_CHARS) return named;
  throw DomainError.validation([
    {
      path: `_meta.${LEAD_ID_META}`,
      message: `must be the lead's id, a string of 1 to ${MAX_LEAD_ID_CHARS} characters, or left out`,
    },
  ]);
}

/**
 * The dialog of a call made over the agent's MCP endpoint: the one the client names in `_meta["toolgate/dialog_id"]`;
 * else one per MCP session (`mcp-session-…`, a hash: an app never learns the session id, and another agent's session
 * never makes the same dialog); else, from a client without a session (the 2026-07-28 protocol has none), one per call
 * (`mcp-call-…`): calls of unrelated conversations are never taken for one dialog, as one constant name would do.
 */
export function mcpDialogId(named: unknown, agent: AgentRef, clientSessionId: string | undefined): string {
  if (named !== undefined) {
    if (typeof named === 'string' && named.length > 0 && named.length <= MAX_DIALOG_ID_CHARS) return named;
    throw DomainError.validation([
      {
        path: `_meta.${DIALOG_ID_META}`,
        message: `must be the host's dialog id, a string of 1 to ${MAX_DIALOG_ID_CHARS} characters, or left out`,
      },
    ]);
  }
  if (clientSessionId !== undefined) {
    const digest = createHash('sha256').update(agentKey(agent, clientSessionId)).digest('base64url');
    return `mcp-session-${digest.slice(0, 22)}`;
  }
  return `mcp-call-${randomUUID()}`;
}
