import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

export const TestCallSchema = z.strictObject({
  arguments: z
    .unknown()
    .optional()
    .meta({ description: "Checked against the tool's parameters (an MCP tool's inputSchema) as a real call's are" }),
  configuration: JsonObject.optional().meta({ description: "The webhook body's configuration ({} when absent)" }),
  private_data: JsonObject.optional().meta({
    description: "The webhook body's private_data ({} when absent); never stored but in the encrypted body",
  }),
});
