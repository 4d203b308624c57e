import { z } from 'zod';

/** A quota: a whole number ≥ 1, or null (the deployment's default applies; none when it sets none). */
function quota(name: string, of: string) {
  const words = `${name} must be a whole number of 1 or more, or null for the default`;
  return z
    .number({ error: words })
    .int(words)
    .min(1, words)
    .nullable()
    .optional()
    .transform((value) => value ?? null)
    .meta({
      description: `Calls a minute (sliding) ${of}; null or omitted: the deployment's default, if any`,
      example: 60,
    });
}

export const PutProjectLimitsSchema = z.strictObject({
  agent_calls_per_minute: quota('agent_calls_per_minute', 'of each agent of the project'),
  project_calls_per_minute: quota('project_calls_per_minute', 'of all the agents of the project together'),
});

export const ProjectLimitsResponseSchema = z.object({
  agent_calls_per_minute: z
    .number()
    .nullable()
    .meta({ description: "In force: the project's, else DEFAULT_AGENT_CALLS_PER_MINUTE; null: no quota" }),
  project_calls_per_minute: z
    .number()
    .nullable()
    .meta({ description: "In force: the project's, else DEFAULT_PROJECT_CALLS_PER_MINUTE; null: no quota" }),
});
