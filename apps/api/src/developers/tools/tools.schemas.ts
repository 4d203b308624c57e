import { z } from 'zod';
import {
  ATTEMPT_TIMEOUTS_S,
  EXECUTION_MODES,
  MAX_PARAMETERS,
  PARAMETER_TYPES,
  RETRY_WINDOWS,
  parameterNameProblem,
  toolNameProblem,
} from '../../../../../libs/domain/src/index.js';
import { HttpUrl, fixedField, text } from '../../common/field.schemas.js';

function localized(max: number) {
  return z.strictObject({ ru: text(1, max), en: text(1, max) });
}

const ToolName = z
  .string()
  .superRefine((value, ctx) => {
    const problem = toolNameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ description: 'System name, unique in the app', example: 'find_customer' });

const ParameterSchema = z.strictObject({
  name: z.string().superRefine((value, ctx) => {
    const problem = parameterNameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  type: z.enum(PARAMETER_TYPES),
  description: text(1, 500).meta({ description: 'Shown to the model' }),
  required: z.boolean().default(false),
});

const AttemptTimeout = z
  .union(
    ATTEMPT_TIMEOUTS_S.map((value) => z.literal(value)),
    { message: `must be one of ${ATTEMPT_TIMEOUTS_S.join(', ')}` },
  )
  .meta({ description: 'Seconds one attempt may take' });

const fields = {
  title: localized(100),
  description: localized(1000),
  response_description: localized(1000),
  agent_description: text(1, 2000).meta({ description: 'What the model is told instead of description.ru' }),
  handler_url: HttpUrl,
  parameters: z.array(ParameterSchema).max(MAX_PARAMETERS, `at most ${MAX_PARAMETERS} parameters`),
  configurable: z.boolean(),
  allow_multiple: z.boolean(),
  execution_mode: z.enum(EXECUTION_MODES),
  attempt_timeout_s: AttemptTimeout,
  retry_window: z.enum(RETRY_WINDOWS).meta({ description: 'Required for wait and background, refused for instant' }),
};

export const CreateToolSchema = z.strictObject({
  name: ToolName,
  title: fields.title,
  description: fields.description,
  response_description: fields.response_description.nullable().optional(),
  agent_description: fields.agent_description.nullable().optional(),
  handler_url: fields.handler_url,
  parameters: fields.parameters.default([]),
  configurable: fields.configurable.default(false),
  allow_multiple: fields.allow_multiple.default(false),
  execution_mode: fields.execution_mode,
  attempt_timeout_s: fields.attempt_timeout_s.default(30),
  retry_window: fields.retry_window.nullable().optional(),
});

export const UpdateToolSchema = z.strictObject({
  name: fixedField('the tool name is fixed once created: create a new tool for another name'),
  title: fields.title.optional(),
  description: fields.description.optional(),
  response_description: fields.response_description.nullable().optional(),
  agent_description: fields.agent_description.nullable().optional(),
  handler_url: fields.handler_url.optional(),
  parameters: fields.parameters.optional(),
  configurable: fields.configurable.optional(),
  allow_multiple: fields.allow_multiple.optional(),
  execution_mode: fields.execution_mode.optional(),
  attempt_timeout_s: fields.attempt_timeout_s.optional(),
  retry_window: fields.retry_window.nullable().optional(),
});

/** Documentation of the answer (not used to validate). */
export const ToolResponseSchema = CreateToolSchema.extend({
  id: z.string(),
  app_id: z.string(),
  installations_on_older_definition: z.number().int().meta({
    description: "How many installations' agents still see an older definition of the tool (approval pending)",
  }),
  created_at: z.string(),
  updated_at: z.string(),
});
