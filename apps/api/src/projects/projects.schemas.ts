import { z } from 'zod';
import { PARAMETER_TYPES, PRIVATE_DATA_ACTIONS, THEMES } from '../../../../libs/domain/src/index.js';
import { text } from '../common/field.schemas.js';

export const InstallAppSchema = z.strictObject({ app_id: z.string().min(1).max(200) });

export const LanguageQuerySchema = z.object({ lang: z.enum(['ru', 'en']).default('ru') });

const JsonObject = z.record(z.string(), z.unknown());

const ConfiguredParameterSchema = z.strictObject({
  name: z.string().min(1).max(64),
  type: z.enum(PARAMETER_TYPES),
  description: text(1, 500),
  required: z.boolean(),
  allowed_values: z.array(z.union([z.string(), z.number(), z.boolean()])).max(500).default([]),
});

const settings = {
  title: z.string().max(160, 'must be at most 160 characters').nullable().optional(),
  configuration: JsonObject.optional().meta({ description: 'Given back when read; at most 64 KiB serialized' }),
  configured_parameters: z.array(ConfiguredParameterSchema).max(32).optional(),
  private_data_action: z.enum(PRIVATE_DATA_ACTIONS).optional(),
  private_data: JsonObject.optional().meta({ description: 'Write-only: stored encrypted, never returned', writeOnly: true }),
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

export const ExchangeLaunchCodeSchema = z.strictObject({ launch_code: z.string().min(1).max(200) });
