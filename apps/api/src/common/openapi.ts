import { type INestApplication, applyDecorators } from '@nestjs/common';
import {
  ApiOperation,
  ApiQuery,
  ApiResponse,
  DocumentBuilder,
  type OpenAPIObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { z } from 'zod';
import { ProblemSchema } from './problem.schemas.js';

/** A JSON Schema object as zod prints it (properties, required, and the rest). */
export type JsonSchemaObject = Record<string, unknown> & {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
};

/** The JSON Schema of a zod schema for /docs: the same schema that validates documents the route. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchemaObject {
  const options = { io, unrepresentable: 'any', target: 'draft-2020-12' } as const;
  const { $schema: _, ...jsonSchema } = z.toJSONSchema(schema, options) as JsonSchemaObject;
  return jsonSchema;
}

export type ProblemStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 428 | 429 | 503;

const PROBLEM_DESCRIPTIONS: Record<ProblemStatus, string> = {
  400: 'The request cannot be read (malformed JSON, a bad header)',
  401: 'No bearer token, or one that does not verify',
  403: 'The token is not for this resource',
  404: 'Not found, or not yours',
  409: 'Conflicts with what exists (a name taken, a state that does not allow it)',
  413: 'The body is larger than 1 MiB',
  422: 'A field cannot be taken: `errors[]` names each',
  428: 'Destructive: repeat with ?confirm=true',
  429: "Too many (waits, an app's delivery limits, call quotas): retry after Retry-After seconds",
  503: 'A dependency is down: retry after Retry-After seconds',
};

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

/** The application/problem+json answers an operation (or every operation of a controller) can give. */
export function Problems(...statuses: ProblemStatus[]) {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: PROBLEM_DESCRIPTIONS[status],
        content: { 'application/problem+json': { schema: PROBLEM_REF } },
      }),
    ),
  );
}

/** An operation's id (the generated client's method name) and summary. */
export function Operation(operationId: string, summary: string, description?: string) {
  return ApiOperation({ operationId, summary, ...(description ? { description } : {}) });
}

/** A JSON answer documented by its zod schema (documentation only: presenters are not validated on the hot path). */
export function Answers(status: 200 | 201 | 202, schema: z.ZodType, description: string) {
  return ApiResponse({
    status,
    description,
    content: { 'application/json': { schema: jsonSchemaOf(schema, 'output') } },
  });
}

/** 204: done, no body. */
export function AnswersNoContent(description = 'Done; no body') {
  return ApiResponse({ status: 204, description });
}

/** One query parameter per field of the zod schema that validates the query. */
export function QueryOf(schema: z.ZodObject) {
  const json = jsonSchemaOf(schema, 'input');
  const required = new Set<string>(json.required ?? []);
  return applyDecorators(
    ...Object.entries(json.properties ?? {}).map(([name, property]) => {
      const { description, ...propertySchema } = property;
      const isRequired = required.has(name) && !('default' in property);
      return ApiQuery({
        name,
        required: isRequired,
        schema: propertySchema,
        ...(typeof description === 'string' ? { description } : {}),
      });
    }),
  );
}

/** Methods a path item of OpenAPI 3.1 can hold (Nest lists `search` and `query` too for `@All`). */
const PATH_ITEM_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The API's OpenAPI 3.1 document, from the controllers' decorators and the zod schemas. */
export function describeApi(app: INestApplication, publicBaseUrl: string): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setOpenAPIVersion('3.1.0')
      .setTitle('Toolgate')
      .setDescription('Give AI agents tools that third parties build. Errors are application/problem+json (RFC 9457).')
      .setVersion(process.env.npm_package_version ?? '0.1.0')
      .addServer(publicBaseUrl)
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
      .build(),
    { operationIdFactory: (_controller, method) => method },
  );
  const schemas = { ...document.components?.schemas, Problem: jsonSchemaOf(ProblemSchema, 'output') };
  document.components = { ...document.components, schemas };
  for (const pathItem of Object.values(document.paths) as Record<string, { security?: unknown[] }>[]) {
    for (const method of Object.keys(pathItem)) {
      if (!PATH_ITEM_METHODS.has(method)) delete pathItem[method];
      // An operation without a bearer requirement is public: say so, rather than leave it undefined.
      else pathItem[method].security ??= [];
    }
  }
  return document;
}
