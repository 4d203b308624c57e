import { z } from 'zod';
import { APPROVE_CHANGES } from '../../../../libs/persistence/src/index.js';
import { INSTANCE_STATUSES, PARAMETER_TYPES, PRIVATE_DATA_ACTIONS, THEMES } from '../../../../libs/domain/src/index.js';
import { text } from '../common/field.schemas.js';

export const InstallAppSchema = z.strictObject({ app_id: z.string().min(1).max(200) });

export const LanguageQuerySchema = z.object({ lang: z.enum(['ru', 'en']).default('ru') });

const JsonObject = z.record(z.string(), z.unknown());

const ConfiguredParameterSchema = z.strictObject({
  name: z.string().min(1).max(64),
  type: z.enum(PARAMETER_TYPES),
  description: text(1, 500),
  required: z.boolean(),
  allowed_values: z
    .array(z.union([z.string(), z.number(), z.boolean()]))
    .max(500)
    .default([]),
});

const settings = {
  title: z.string().max(160, 'must be at most 160 characters').nullable().optional(),
  configuration: JsonObject.optional().meta({ description: 'Given back when read; at most 64 KiB serialized' }),
  configured_parameters: z.array(ConfiguredParameterSchema).max(32).optional(),
  private_data_action: z.enum(PRIVATE_DATA_ACTIONS).optional(),
  private_data: JsonObject.optional().meta({
    description: 'Write-only: stored encrypted, never returned',
    writeOnly: true,
  }),
  private_data_required: z.boolean().optional(),
  enabled: z.boolean().optional(),
};

export const CreateToolInstanceSchema = z.strictObject({
  installation_id: z.string().min(1).max(200),
  tool_name: z.string().min(1).max(200),
  ...settings,
});

export const UpdateToolInstanceSchema = z.strictObject(settings);

export const ConfiguratorLaunchSchema = z.strictObject({
  installation_id: z.string().min(1).max(200),
  tool_name: z.string().min(1).max(200),
  instance_id: z.string().min(1).max(200).optional(),
  theme: z.enum(THEMES),
  language: z.enum(['ru', 'en']),
  developer_mode: z.boolean().optional(),
});

export const UpdateInstallationSchema = z.strictObject({
  approve_changes: z.enum(APPROVE_CHANGES).meta({
    description:
      "`ask`: a changed tool definition waits for the project's approval (agents keep the approved one); " +
      '`auto`: agents see every change at once',
  }),
});

export const ApproveChangesSchema = z.strictObject({
  tools: z
    .array(z.string().min(1).max(200))
    .max(500)
    .optional()
    .meta({ description: 'The tools whose pending change to approve; all when absent' }),
});

export const ExchangeLaunchCodeSchema = z.strictObject({ launch_code: z.string().min(1).max(200) });

/** Documentation of the answers (not used to validate). */
export const InstallationResponseSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  app_id: z.string(),
  app: z.object({ name: z.string(), display_name: z.string() }),
  approve_changes: z.enum(APPROVE_CHANGES),
  pending_changes: z.array(z.string()).meta({
    description: 'The tools whose changed definition waits for approval (agents still see the approved one)',
  }),
  created_at: z.string(),
});

const ToolDefinitionSchema = z.record(z.string(), z.unknown()).meta({
  description:
    'What an agent sees of the tool. HTTP: {name, description {ru, en}, agent_description, parameters}; ' +
    'MCP: {name, title, description, input_schema}',
});

export const InstallationChangesResponseSchema = z.object({
  installation_id: z.string(),
  approve_changes: z.enum(APPROVE_CHANGES),
  data: z.array(
    z.object({
      tool_name: z.string(),
      kind: z.enum(['http', 'mcp']),
      approved: ToolDefinitionSchema.nullable().meta({
        description: 'The definition agents see now; null for a tool new since the app was installed',
      }),
      proposed: ToolDefinitionSchema,
    }),
  ),
});

export const ApprovedChangesResponseSchema = InstallationChangesResponseSchema.extend({
  approved: z.array(z.string()).meta({ description: 'The tools whose change was approved by this request' }),
});

export const InstallableToolsResponseSchema = z.object({
  data: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['http', 'mcp']),
      title: z.string(),
      description: z.string(),
      response_description: z.string().nullable(),
      configurable: z.boolean(),
      allow_multiple: z.boolean(),
      execution_mode: z.string(),
      parameters: z.unknown().meta({ description: 'HTTP tools: the parameter list; MCP tools: the input JSON Schema' }),
      change_pending: z.boolean().meta({
        description: 'The tool changed since the project approved it: agents see the approved definition',
      }),
    }),
  ),
});

export const ToolInstanceResponseSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  agent_id: z.string(),
  installation_id: z.string(),
  app_id: z.string(),
  tool_name: z.string(),
  tool_kind: z.string(),
  title: z.string().nullable(),
  configuration: JsonObject,
  configured_parameters: z.array(
    z.object({
      name: z.string(),
      type: z.enum(PARAMETER_TYPES),
      description: z.string(),
      required: z.boolean(),
      allowed_values: z.array(z.union([z.string(), z.number(), z.boolean()])),
    }),
  ),
  private_data_set: z.boolean(),
  private_data_required: z.boolean(),
  enabled: z.boolean(),
  status: z.enum(INSTANCE_STATUSES),
  configuration_problem: z.string().nullable().meta({
    description:
      "Why status is needs_configuration: the tool's parameters changed and configured_parameters no longer fit",
  }),
  created_at: z.string(),
  updated_at: z.string(),
});

export const ConfiguratorLaunchResponseSchema = z.object({
  url: z.string().meta({ description: "The app's configurator page with the launch code" }),
  launch_code: z.string(),
  expires_at: z.string(),
});

export const LaunchContextResponseSchema = z.object({
  type: z.literal('tool_configurator'),
  app_id: z.string(),
  mode: z.string(),
  project_id: z.string(),
  agent_id: z.string(),
  installation_id: z.string(),
  tool_name: z.string(),
  theme: z.enum(THEMES),
  language: z.enum(['ru', 'en']),
  tool: z
    .object({
      name: z.string(),
      title: z.record(z.string(), z.string()),
      description: z.record(z.string(), z.string()),
      parameters: z.array(
        z.object({ name: z.string(), type: z.enum(PARAMETER_TYPES), description: z.string(), required: z.boolean() }),
      ),
      allow_multiple: z.boolean(),
    })
    .nullable(),
  instance: ToolInstanceResponseSchema.nullable(),
});
