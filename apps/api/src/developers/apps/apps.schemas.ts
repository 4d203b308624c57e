import { z } from 'zod';
import {
  AGENT_TOOLS_MODES,
  DELIVERY_LIMIT_RANGES,
  AUTH_HEADER_VALUE_ACTIONS,
  MCP_CALL_TIMEOUT_RANGE_S,
  isAllowedMcpAuthHeader,
  appNameProblem,
} from '../../../../../libs/domain/src/index.js';
import { HttpUrl, fixedField, text } from '../../common/field.schemas.js';

export const CreateAppSchema = z.strictObject({
  name: z
    .string()
    .superRefine((value, ctx) => {
      const problem = appNameProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ description: 'Unique across Toolgate, fixed once created', example: 'my-crm' }),
  display_name: text(1, 100).meta({ example: 'My CRM' }),
});

export const UpdateAppSchema = z.strictObject({
  name: fixedField('the app name is fixed once created'),
  display_name: text(1, 100).optional(),
  embedded_page_url: HttpUrl.nullable().optional().meta({ description: 'The configurator page; null removes it' }),
  developer_page_url: HttpUrl.nullable().optional(),
  delivery_limits: z
    .strictObject({
      max_in_flight: limit('max_in_flight', DELIVERY_LIMIT_RANGES.maxInFlight).meta({
        description: "At most this many of the app's webhooks and MCP requests open at once; null: no limit",
      }),
      max_per_second: limit('max_per_second', DELIVERY_LIMIT_RANGES.maxPerSecond).meta({
        description: 'At most this many started in any second; null: no limit',
      }),
    })
    .nullable()
    .optional()
    .meta({
      description:
        'Limits across every API and worker process. Omitted (or a field of it omitted): the stored value stays; ' +
        'null: no limit.',
    }),
});

/** A delivery limit: a whole number in `range`, or null (no limit); omitted keeps the stored one. */
function limit(name: string, range: { min: number; max: number }) {
  const words = `${name} must be a whole number from ${range.min} to ${range.max}, or null for no limit`;
  return z.number({ error: words }).int(words).min(range.min, words).max(range.max, words).nullable().optional();
}

const DeliveryLimitsResponseSchema = z.object({
  max_in_flight: z.number().nullable(),
  max_per_second: z.number().nullable(),
});

export const DeliveryLimitsStatusResponseSchema = DeliveryLimitsResponseSchema.extend({
  last_held_back_at: z
    .string()
    .nullable()
    .meta({ description: 'When a limit last held a request back or refused a call (kept 30 days); null: not since' }),
});

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

export const PutAgentToolsSchema = z.strictObject({
  enabled: z.boolean(),
  mode: z.enum(AGENT_TOOLS_MODES),
  mcp: z
    .strictObject({
      url: HttpUrl,
      auth_header_name: z
        .string()
        .regex(HEADER_NAME, 'must be an HTTP header name such as Authorization or X-Api-Key')
        .refine(
          isAllowedMcpAuthHeader,
          'is set by the MCP transport or kept by Toolgate (x-toolgate-*): choose another header',
        )
        .optional(),
      auth_header_value: z
        .string()
        .min(1, 'must not be empty: use auth_header_value_action "clear" to remove it')
        .max(8192, 'must be at most 8192 characters')
        .regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'must not contain control characters')
        .optional()
        .meta({ description: 'Write-only: stored encrypted and never returned', writeOnly: true }),
      auth_header_value_action: z.enum(AUTH_HEADER_VALUE_ACTIONS),
    })
    .nullable()
    .optional()
    .meta({ description: 'Omitted: the stored MCP settings stay. null: they are removed.' }),
  mcp_call_timeout_s: z
    .number({ error: 'must be a whole number of seconds from 1 to 120' })
    .int('must be a whole number of seconds from 1 to 120')
    .min(MCP_CALL_TIMEOUT_RANGE_S.min, 'must be at least 1 (seconds)')
    .max(MCP_CALL_TIMEOUT_RANGE_S.max, 'must be at most 120 (seconds), the longest an MCP call may take')
    .nullable()
    .optional()
    .meta({
      description:
        "The deadline of the app's MCP calls, in seconds (1 to 120). Omitted: the stored one stays. " +
        "null: the deployment's default again (MCP_CALL_TIMEOUT_S, 30 s unless set).",
    }),
});

/** Documentation of the answers (not used to validate). */
export const AppResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  display_name: z.string(),
  embedded_page_url: z.string().nullable(),
  developer_page_url: z.string().nullable(),
  agent_tools: z.object({
    enabled: z.boolean(),
    mode: z.enum(AGENT_TOOLS_MODES),
    mcp_call_timeout_s: z.number().meta({ description: 'The deadline of its MCP calls, in seconds' }),
  }),
  delivery_limits: DeliveryLimitsResponseSchema.meta({ description: 'null: no limit' }),
  created_at: z.string(),
  updated_at: z.string(),
});

export const CreatedAppResponseSchema = AppResponseSchema.extend({
  webhook_secret: z.string().meta({ description: 'Shown in this response only: store it now' }),
});

export const AgentToolsResponseSchema = z.object({
  enabled: z.boolean(),
  mode: z.enum(AGENT_TOOLS_MODES),
  mcp: z
    .object({ url: z.string(), auth_header_name: z.string().nullable(), auth_header_value_set: z.boolean() })
    .nullable(),
  mcp_call_timeout_s: z.number().meta({
    description: "The deadline of the app's MCP calls, in seconds: its own, else the deployment's default",
  }),
});

export const RotatedSecretResponseSchema = z.object({
  webhook_secret: z.string(),
  previous_valid_until: z.string(),
});

export const McpSnapshotResponseSchema = z.object({
  data: z.array(
    z.object({
      name: z.string(),
      title: z.string().nullable(),
      description: z.string().nullable(),
      input_schema: z.record(z.string(), z.unknown()),
      annotations: z.unknown(),
      available: z.boolean(),
      installations_on_older_definition: z.number().int().meta({
        description: "How many installations' agents still see an older definition of the tool (approval pending)",
      }),
      reason: z.string().optional().meta({ description: 'Why the tool cannot be offered, when not available' }),
    }),
  ),
  refreshed_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  last_error: z.string().nullable(),
});
