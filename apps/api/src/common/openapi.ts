import { z } from 'zod';

/** The JSON Schema of a zod schema for /docs: the same schema that validates documents the route. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, any> {
  const { $schema: _, ...jsonSchema } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Record<string, unknown>;
  return jsonSchema;
}
