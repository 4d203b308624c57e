import { z } from 'zod';
import { HttpUrl } from '../../common/field.schemas.js';

export const PutEventEndpointSchema = z.strictObject({
  url: HttpUrl.meta({
    description: 'Where tool_call.finished events are POSTed',
    example: 'https://host.example.com/events',
  }),
});

export const EventEndpointResponseSchema = z.object({ url: z.string() });

export const EventEndpointWithSecretResponseSchema = z.object({
  url: z.string(),
  secret: z
    .string()
    .meta({ description: 'whsec_…: verifies the events (Standard Webhooks); shown here and on rotation' }),
});

export const RotatedEventSecretResponseSchema = z.object({
  secret: z.string(),
  previous_valid_until: z.string().meta({ description: 'Until when the replaced secret still signs' }),
});
